// The macro planner (agents/policies/macro.py): a decision only where information arrives, a
// bandit over macro moves, many small capped solves of sampled deals, a fresh vote every time.
//
// After the method of lonelybot (github.com/vuonghy2442/lonelybot: `pick_moves` in
// src/mcts_solver.rs, `hop_solve_game` in src/hop_solver.rs), written anew over the Game contract
// so that it serves every variant:
//
// 1. CANDIDATES. From the current position, every line of moves that tells the player nothing
//    new and can be undone move by move is explored (the QUIET REGION, breadth first, at most
//    `region` positions); each move out of it that turns up a card the player has not seen, or
//    cannot be undone by one move (a card put on a foundation, unless Klondike's worrying_back
//    lets it come back; a talon card played), ends a candidate: the quiet line to it, then that
//    move. The moves are the
//    solver's own (Game::solver_moves: in Klondike "turn the stock k times, then play the talon's
//    top"; a variant's provably safe move alone where it has one). Whether a move shows something
//    new is asked of the position itself, never of a hidden card: the move is played on three
//    deals that differ at every position the player has not seen (the frame's hidden cards
//    rotated), and it shows something exactly when their observations then differ. A macro move
//    whose turns show a new card ends at that turn.
// 2. THE BANDIT. Each candidate is judged on sampled deals (the hidden cards dealt again at random
//    among their places, consistent with everything seen), the same deals for every candidate
//    (common random numbers): the candidate's line is played on the deal and the solver searches
//    on with at most `solve_nodes` positions (a capped search: the variant's planner moves, not
//    safe, an estimate). A win scores 1; a search that ran out of budget or was proven lost
//    scores `cards` times the share of the winning cards it reached (0.2 by default; with 0 only
//    wins count, as in lonelybot). UCB1 (constant `exploration`) gives the next `batch` samples
//    to a candidate, until one has had `samples` of them or has won every one of at least two
//    batches (or the decision's node or time budget is spent, or no candidate has won any of two
//    batches: then, with `deepen`, the bandit starts afresh on searches four times as large; else
//    the most sampled, the best valued, the ordering's first). That candidate's
//    line is played; the next decision
//    votes afresh, and no sample's line is ever followed.
//    RACING (`race` > 0) instead of UCB1: every candidate still in the race is judged on the same
//    next `batch` deals; after each round (from the second on) a candidate drops out when the
//    leader's value beats its own on the deals both met by more than `race` standard errors of
//    their paired differences (the deals are common, so what the two share cancels), or when the
//    two are as good as tied: the difference, `race` standard errors wide either way, within
//    `tie` (the standard error counted at least 1 / deals: no deal told them apart is evidence
//    worth one deal, so a tie needs deals > race / tie, about 67 by default). The last
//    candidate left is played, or the leader when `samples` deals (or a budget above) are spent,
//    or at once a leader that won every deal of at least two batches. A decision the deals tell
//    apart soon costs little; a close one gets every deal, and a wrong pick there costs little.
// 3. NOTHING HIDDEN. When every consistent deal is the real one, the real deal is solved with
//    `known_nodes`; a win's line is returned as a plan (it wins: there is nothing to guess).
//    Otherwise each candidate gets one capped solve and the best value is played.
//
// What it reads: the frame (the real deck with the hidden cards sorted into their places, which
// depends only on WHICH cards are hidden, never on where they lie), the positions hidden, the
// actions played, and its own random generator. Its choices never depend on a hidden card
// (tests/agents/policies/test_macro.py plays deals that differ only in unseen cards).
#pragma once

#include <cstdint>
#include <vector>

#include "core.hpp"
#include "solver.hpp"

namespace pg {

// A small network's value of a position, scoring a capped search not won (`value_net` below): the
// expert-iteration net's board embedding and value head (agents/policies/exit_net.py), its won
// logit as a probability. Layers in order, each `out` x `in` weights (row-major) and `out` biases,
// a ReLU after every layer but the last; the first reads the player's observation (Game::observe).
class ValueNet {
public:
    void add(int in, int out, std::vector<float> weights, std::vector<float> biases);
    int layers() const { return static_cast<int>(in_.size()); }
    int obs_size() const { return in_.empty() ? 0 : in_.front(); }
    // The probability of its first output (a logistic of the last layer's first value).
    double operator()(const Game& g) const;

private:
    std::vector<int> in_, out_;
    std::vector<std::vector<float>> w_, b_;
};

struct MacroSettings {
    int samples = 50;                    // samples on one candidate that decide (lonelybot: 3000)
    int batch = 5;                       // samples given to a candidate at a time
    std::uint64_t solve_nodes = 3000;    // nodes of each sampled solve (lonelybot: 1000 positions)
    double exploration = 1.0;            // UCB1's constant, on values in [0, 1]
    double cards = 0.2;                  // weight of the foundation share in a solve not won
    int region = 2000;                   // positions of the quiet region explored at most
    std::uint64_t known_nodes = 200000;  // the solve of the real deal when nothing is hidden
    std::uint64_t max_nodes = 0;         // nodes a decision may spend in all (0: no limit)
    double max_seconds = 0.0;            // seconds a decision may take (0: no limit)
    std::uint64_t seed = 0;
    double race = 0.0;                   // > 0: racing on paired deals, this many standard errors
    double tie = 0.03;                   // racing: a difference this small is no difference
    bool all_won = true;                 // a candidate that won every deal of two batches is played
    // The solver's proven dominances in the capped searches and the solve of the real deal
    // (Game::solver_moves_pruned, Game::solver_hash; where the variant has none, its planner moves
    // with solver_hash): Klondike with partial moves wins about a third more sampled deals in
    // 3,000 nodes with them.
    bool dominances = false;
    // Positions of this deal proven lost by the solves of earlier decisions (read and added to by
    // the solve of the real deal once nothing is hidden), or nullptr: with it a game's later
    // solves skip what its earlier ones proved, so they reach further at the same budget.
    LostTable* table = nullptr;
    // One candidate per event (its last action): the shortest line to it (macro.cpp, candidates).
    bool one_per_event = false;
    // > 0: each sampled deal is judged by the solver itself (solve(), solver.hpp: its transposition
    // table and its probe of this many of the solve_nodes first, as the older planner solves its
    // sampled deals) instead of the lazy capped search; a solve not won scores `cards` times the
    // most foundation cards it reached.
    std::uint64_t probe_nodes = 0;
    // > 0: when no candidate has won one deal of two batches (the capped searches too small to
    // tell the candidates apart), the bandit starts again with searches four times as large, at
    // most this many times; the last try's silence picks as without it.
    int deepen = 0;
    // When no candidate has won one of its deals at the moment of choosing: false, the most
    // sampled (then the best valued) is played; true, the ordering's first (the solver's move
    // order, which tries cards to the foundations first), whose values differ from the others' by
    // foundation shares of a few cards, mostly noise.
    bool silent_first = false;
    // A sampled deal the capped search did not win is scored by the better of its foundation share
    // and that of a rollout of the base policy (rollout.hpp) from the candidate's position to the
    // end of the game: where searches of a few thousand positions see only the next cards, the
    // rollout sees where the game goes (the older planner's rollouts=N, Light and Shade's row).
    bool rollout = false;
    // Positions of `unseen` whose card the search knows (the frame holds it there): a move that
    // shows one to the player still ends a candidate, but every sampled deal keeps the frame's
    // card there. Klondike with the stock known (`stock="known"`): its stock turns end candidates as
    // with the stock hidden (a few candidates a decision, not one per talon card), while the
    // sampled deals deal the stock as it lies.
    std::vector<int> fixed;
    // > 0: a capped search not won scores `cards` times its best position's progress, each card put
    // up counting 1 and each face-down card turned up (Game::face_down_cards) `dig`, over the most
    // there is (the winning cards and the start's face-down cards at `dig` each); 0: foundation
    // cards alone, as before. The lazy capped searches only (not `probe_nodes`' solves).
    double dig = 0.0;
    // > 0: each sampled deal is judged by the layered beam search (beam.hpp) of this width, with
    // at most `solve_nodes` nodes, instead of the lazy capped search: where a depth-first search
    // stays below its first choices (one-pass Klondike: it wins 1 of 17 winnable deals in 20,000
    // nodes), a beam of width 30 wins about half of them in 4,000. The variant must have beam
    // layers (Game::beam_layer); a search not won scores `cards` times the most foundation cards
    // it reached.
    std::uint64_t beam = 0;
    // A policy's weight for each action id (the expert-iteration net's move probabilities,
    // agents/policies/exit.py `macro+net`), or empty: where cards are hidden, the candidates are
    // ranked by the weight of their line's first move (the solver's ordering among equals), so
    // the bandit samples the policy's favourites first and, with `silent_first`, plays its first
    // where no deal is won; with `keep` > 0 only that many candidates are judged at all.
    std::vector<double> prior;
    int keep = 0;
    // A network's value (ValueNet above), or nullptr: a sampled deal the capped search did not win
    // scores `cards` times the net's won probability of the position the candidate's line reached
    // there (what the player would see, the deal's hidden cards as sampled), in place of the
    // foundation share: the net inside the search, valuing where the search ran out.
    const ValueNet* value_net = nullptr;
    // UCB1 only: the batch that would bring the candidate picked to `samples` is not dealt where
    // nothing in it could change the choice (no `deepen` or `silent_first` left to act on a deal
    // won or not): that candidate is played at once. The same moves as without it, fewer searches
    // (with samples = 2 * batch, every candidate is judged on one batch and the best valued is
    // played); only the plays, wins and values reported differ.
    bool skip_decided = false;
};

struct MacroCandidate {
    std::vector<int> line;  // quiet actions, then the one that shows a card or wins one
    int plays = 0;          // sampled solves
    int wins = 0;           // of them won
    double value = 0.0;     // their summed value
};

struct MacroResult {
    std::vector<MacroCandidate> candidates;
    int chosen = -1;              // index into candidates; -1 when there is none
    std::vector<int> plan;        // nothing hidden and the real deal won: its whole winning line
    std::uint64_t nodes = 0;      // solver nodes spent
    int region_positions = 0;     // positions of the quiet region explored
    int deals = 0;                // sampled deals dealt
};

// Decide from the position reached by dealing `frame` and playing `history` on a copy of `proto`
// (any game of the variant and options; not changed). `unseen`: the positions of `frame` whose
// card the player has not seen.
MacroResult macro_decide(const Game& proto, const std::vector<int>& frame, const std::vector<int>& unseen,
                         const std::vector<int>& history, const MacroSettings& settings);

}  // namespace pg

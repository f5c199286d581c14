// Monte-Carlo tree search over what the player has seen (information-set UCT), for the `uct`
// policy (agents/policies/uct.py): the planning of Bjarnason, Fern and Tadepalli (ICAPS 2009)
// that values a move by playing on, rather than by solving sampled deals in hindsight.
//
// The caller deals the cards the player has not seen again at random (a few `samples`, each a
// game in the current position: patience_gym.determinize.consistent_deck, replayed). Each
// iteration takes the next sample, walks down the tree by UCB1 and rolls out from the first new
// node. A tree node is an INFORMATION STATE, not a position: the root is the current decision,
// and a child is keyed by its parent, the action and the observation the action led to
// (Game::observe). Two samples that turn up different cards after the same action therefore
// reach different children, and two that turn up the same card share one. So the tree's choices
// depend only on what the player would have seen at each step of the way (no hindsight: a move
// is never valued by a card it has not shown yet), while the sampled deals decide what turns up.
//
// The rollout below a new node is the base policy of the search's own macro moves
// (Game::solver_moves: in Klondike, "turn the stock k times, then play the talon's top"), each
// step the move that reaches a position not met before in this rollout with the most foundation
// cards won, then the highest move priority, then the first listed; the variant's safe move is
// played at once; a dead position (Game::dead) ends the rollout. It reads the sample's cards
// (a rollout is one guess of how the game may go), as the rollouts of rollout.hpp do. The value
// of an iteration is the share of the winning cards on the foundations when its rollout ends
// (1 for a win).
#pragma once

#include <cstdint>
#include <unordered_set>
#include <vector>

#include "core.hpp"

namespace pg {

struct UctSettings {
    int iterations = 200;     // tree walks in all, taking the samples in turn
    int rollout_moves = 60;   // macro moves a rollout plays at most
    int max_depth = 40;       // actions below the root at which a walk stops and rolls out
    double exploration = 0.3; // UCB1's constant, on values in [0, 1]
    double discount = 1.0;    // a walk's value at an action, times this for each action (tree
                              // actions, then rollout moves or the solver's winning line) after it
    int leaf_nodes = 0;       // > 0: value a new node by the solver (that many nodes, all in its
                              // probe) on the walk's sample instead of by a rollout: 1 if it wins,
                              // else the most foundation cards it reached, as a share
};

struct UctResult {
    std::vector<int> actions;   // the root's legal actions, ascending
    std::vector<int> visits;    // walks through each
    std::vector<double> values; // their mean value (0 where never visited)
    std::uint64_t nodes = 0;    // information states in the tree
    std::uint64_t rollout_steps = 0;  // macro moves played in rollouts
};

// Search from the position the samples share (each a game in it; same legal actions). Samples are
// not changed. Deterministic: the same samples and settings give the same result. `visited`: the
// observation_hash() of each position the real game has passed through; no move in the tree goes back to
// one of them, nor to a position met earlier on its own walk (unless the root has no other move).
UctResult uct_search(const std::vector<const Game*>& samples, const UctSettings& settings,
                     const std::unordered_set<std::uint64_t>& visited);

// A hash of what the player sees: an observation (n floats, as Game::observe writes them), so equal
// on every deal consistent with what was seen; the key of a position in the player's eyes.
std::uint64_t observation_hash(const float* obs, std::size_t n);

}  // namespace pg

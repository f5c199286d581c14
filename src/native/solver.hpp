// A perfect-information solver over the native Game contract: every card is known (the deal is
// the real one, hidden cards included), so "won" means a player who saw every card could win
// this deal ("thoughtful" patience), the upper bound a blind policy is measured against.
//
// Depth-first search with
// * a transposition table of positions already reached, keyed on Game::canonical_key() (64-bit
//   hashes in an open-addressing table). Winnability is reachability of a won position, which
//   depends on the position only (no step count in the state, no step limit in the search), so a
//   position reached before never needs a second look: either it is still being searched (a
//   cycle, nothing new behind it) or its search found no win;
// * the variant's moves: Game::solver_moves(), by default every legal action alone; a variant may
//   offer macro moves instead (a line of actions, such as turning the stock until a card shows
//   and playing it), as long as every winning line can be rewritten as a sequence of them;
// * move ordering: moves that put more cards on the foundations first, then the variant's
//   priority for the move, then the table's order;
// * only safe pruning: Game::safe_move() (a variant's provably safe automatic move, played alone),
//   Game::dead() (a position proven lost: nothing behind it is searched), the table above, and
//   with SolveOptions::dominances the proven dominances: Game::solver_moves_pruned() in place of
//   solver_moves(), and a stop at a Game::sure_win() position (its win played out by a small
//   search of its own).
// Verdicts: Won (with the actions, replayable from the deal), Lost (proven: every position
// reachable from the deal was searched; a 64-bit hash collision could in principle prune a
// position never seen, with odds below 1e-5 at the budgets used), Unknown (node or time budget
// reached first).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core.hpp"

namespace pg {

// The variants' solver hooks in use (the default). False: the exact defaults instead (the whole
// state_key(), no safe move, no move priority), so tests can check a hook changes no verdict;
// bound as patience_gym._native.solver_hooks(bool). Process-wide: set it only between solves.
inline bool use_hooks = true;

// The 64-bit hash a search stores for a position: the variant's canonical_hash() with the hooks
// (its solver_hash() with the dominances too), a hash of the whole state_key() without them.
inline std::uint64_t position_hash(const Game& g, bool dominances = false) {
    if (use_hooks) return dominances ? g.solver_hash() : g.canonical_hash();
    const std::string key = g.state_key();
    return std::hash<std::string>{}(key);
}

// Nodes (one per move tried) and seconds, shared by the searches (solver.cpp, beam.cpp).
struct Budget {
    std::uint64_t max_nodes;
    double max_seconds;  // <= 0: no time limit
    std::chrono::steady_clock::time_point t0;
    std::uint64_t nodes = 0;

    // Count one more node; false once the budget is spent.
    bool spend() {
        if (++nodes > max_nodes) return false;
        return (nodes & 1023) != 0 || max_seconds <= 0 ||
               std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() <= max_seconds;
    }
};

enum class Verdict { Unknown = 0, Won = 1, Lost = 2 };

struct SolveResult {
    Verdict verdict = Verdict::Unknown;
    std::vector<int> actions;     // the winning line when Won
    std::uint64_t nodes = 0;      // positions generated (one per move tried, a macro move counting once)
    std::uint64_t positions = 0;  // distinct canonical positions stored
    double seconds = 0.0;
    // The most foundation cards on a position the search entered (the start's when it entered no
    // better one; a win's own line is `actions`), and the actions from the start to the first
    // position entered with that many: what a planner can use when the budget ran out before a
    // win (agents/planner.py, progress=1).
    int best_cards = 0;
    std::vector<int> best_line;
};

// Positions PROVEN LOST by earlier searches of one deal, kept between them: a later search (a
// larger budget, say) skips them as it skips positions of its own table. A depth-first search
// that runs out of budget has proven lost only the positions whose every move it searched
// without leaning on a position still open (on its current line, or generated and not yet
// searched): it tracks, for each position, the shallowest open position its proof leans on
// (Tarjan's low link), and a position whose proof leans on nothing shallower than itself is lost
// once it is searched, with every position searched below it. Only those are kept. Its keys are
// the positions' position_hash(), so a table must serve searches with the same hooks and
// dominances, from positions of the same deal.
class LostTable {
public:
    LostTable() : slots_(1u << 10, 0) {}
    bool contains(std::uint64_t h) const;
    void insert(std::uint64_t h);
    std::uint64_t size() const { return size_; }
    const std::vector<std::uint64_t>& slots() const { return slots_; }

private:
    std::vector<std::uint64_t> slots_;  // open addressing, 0 empty (a hash 0 is stored as 1)
    std::uint64_t size_ = 0;
};

struct SolveOptions {
    // > 0: first spend up to that many of the max_nodes on a probe for a win (limited discrepancy
    // search, solver.cpp), which can answer Won but never Lost; the exhaustive search then has
    // what is left. Only with the hooks on (the probe follows the variants' ordering).
    std::uint64_t probe_nodes = 0;
    // The proven dominances (Game::solver_moves_pruned, Game::sure_win). Off by default, so the
    // searches that call solve() from the planners (macro.cpp, uct.cpp) search as before; the
    // bindings' solve() turns them on unless told otherwise. Only with the hooks on.
    bool dominances = false;
    // Positions proven lost by earlier searches from this deal (read and added to), or nullptr.
    LostTable* table = nullptr;
};

// Solve from `start` (not modified). max_nodes > 0; max_seconds <= 0 means no time limit.
SolveResult solve(const Game& start, std::uint64_t max_nodes, double max_seconds, const SolveOptions& options);
inline SolveResult solve(const Game& start, std::uint64_t max_nodes, double max_seconds, std::uint64_t probe_nodes = 0) {
    return solve(start, max_nodes, max_seconds, SolveOptions{probe_nodes});
}

}  // namespace pg

// The rollouts of rollout.hpp.
#include "rollout.hpp"

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <unordered_set>

namespace pg {
namespace {

// The base policy's choice among `candidates` (legal in g), skipping a move whose position's hash
// is in `met` (when given): the most foundation cards won, then the highest move priority, then
// the first candidate (candidates come in ascending ids). -1 when none is left; *hash gets the
// chosen position's hash. Each candidate is played on one scratch game, and the positions' hashes
// (a canonical key each in most variants) are asked for in the order of preference only until
// one is not met: the same choice as hashing every candidate, at a fraction of the cost.
int choose(const Game& g, const std::vector<int>& candidates, const std::unordered_set<std::uint64_t>* met,
           std::uint64_t* hash) {
    thread_local std::vector<std::tuple<int, int, int>> scored;  // (gain, priority, -index)
    scored.clear();
    const int before = g.foundation_cards();
    std::unique_ptr<Game> child = g.clone();
    for (std::size_t i = 0; i < candidates.size(); ++i) {
        if (i > 0) child->assign(g);
        child->apply(candidates[i]);
        scored.emplace_back(child->foundation_cards() - before, g.move_priority(candidates[i]), -static_cast<int>(i));
    }
    // the best first; among equals the candidate met first (the largest -index)
    std::sort(scored.begin(), scored.end(), [](const auto& x, const auto& y) { return x > y; });
    for (const auto& s : scored) {
        const int a = candidates[static_cast<std::size_t>(-std::get<2>(s))];
        if (!met) return a;
        child->assign(g);
        child->apply(a);
        const std::uint64_t h = child->canonical_hash();
        if (met->count(h)) continue;
        if (hash) *hash = h;
        return a;
    }
    return -1;
}

}  // namespace

int rollout(Game& g, int max_steps, std::vector<int>* line) {
    std::unordered_set<std::uint64_t> met{g.canonical_hash()};
    std::vector<std::uint8_t> mask(static_cast<std::size_t>(g.n_actions()));
    std::vector<int> legal;
    for (int step = 0; step < max_steps && !g.won(); ++step) {
        g.legal_mask(mask.data());
        legal.clear();
        for (int a = 0; a < g.n_actions(); ++a)
            if (mask[static_cast<std::size_t>(a)]) legal.push_back(a);
        std::uint64_t hash = 0;
        const int best = choose(g, legal, &met, &hash);
        if (best < 0) break;  // no legal move, or every one leads back
        met.insert(hash);
        g.apply(best);
        if (line) line->push_back(best);
    }
    return g.foundation_cards();
}

int preferred(const Game& g, const std::vector<int>& moves) {
    if (moves.empty()) throw std::invalid_argument("ordering_pick needs at least one move");
    for (int a : moves)
        if (!g.is_legal(a)) throw std::invalid_argument("action " + std::to_string(a) + " is not legal now");
    std::vector<int> sorted = moves;
    std::sort(sorted.begin(), sorted.end());  // ties: the lowest id
    return choose(g, sorted, nullptr, nullptr);
}

std::vector<int> rollouts(const Game& start, const std::vector<int>& actions, int max_steps) {
    if (max_steps < 1) throw std::invalid_argument("max_steps must be >= 1, got " + std::to_string(max_steps));
    std::vector<int> out;
    out.reserve(actions.size());
    for (int a : actions) {
        auto g = start.clone();
        g->checked_apply(a);
        out.push_back(rollout(*g, max_steps - 1));
    }
    return out;
}

}  // namespace pg

// The rollouts of rollout.hpp.
#include "rollout.hpp"

#include <stdexcept>
#include <string>
#include <tuple>
#include <unordered_set>

namespace pg {

int rollout(Game& g, int max_steps) {
    std::unordered_set<std::uint64_t> met{g.canonical_hash()};
    std::vector<std::uint8_t> mask(static_cast<std::size_t>(g.n_actions()));
    for (int step = 0; step < max_steps && !g.won(); ++step) {
        g.legal_mask(mask.data());
        const int before = g.foundation_cards();
        int best = -1;
        std::tuple<int, int> best_score{0, 0};
        std::uint64_t best_hash = 0;
        for (int a = 0; a < g.n_actions(); ++a) {
            if (!mask[static_cast<std::size_t>(a)]) continue;
            auto child = g.clone();
            child->apply(a);
            const std::uint64_t h = child->canonical_hash();
            if (met.count(h)) continue;
            const std::tuple<int, int> score{child->foundation_cards() - before, g.move_priority(a)};
            if (best < 0 || score > best_score) {  // ties keep the lower id, met first
                best = a;
                best_score = score;
                best_hash = h;
            }
        }
        if (best < 0) break;  // no legal move, or every one leads back
        met.insert(best_hash);
        g.apply(best);
    }
    return g.foundation_cards();
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

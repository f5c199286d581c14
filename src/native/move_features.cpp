// The move features (see move_features.hpp; the columns are documented in
// patience_gym/move_features.py).
#include "move_features.hpp"

#include <algorithm>
#include <cstring>

namespace pg {
namespace {

constexpr int F_LEGAL = 0, F_GAINED = 1, F_WINS = 2, F_UNCOVERS = 3, F_MOBILITY = 4, F_OPENED = 5,
              F_DEAD_END = 6, F_UNDOES = 7;
static_assert(F_UNDOES + 1 == F_FIXED, "the fixed columns come last");

float clipped(double x) { return static_cast<float>(std::clamp(x, -1.0, 1.0)); }

// The moves the env offers (none once won, as PatienceEnv has it) into mask; how many.
int offered(const Game& g, std::uint8_t* mask) {
    const int n = g.n_actions();
    if (g.won()) {
        std::memset(mask, 0, static_cast<std::size_t>(n));
        return 0;
    }
    g.legal_mask(mask);
    int count = 0;
    for (int a = 0; a < n; ++a) count += mask[a];
    return count;
}

// The unseen-card entries of g's observation into values.
void unseen(const Game& g, const MoveFeatureSpec& spec, MoveFeatureScratch& s, std::vector<float>& values) {
    values.resize(spec.hidden.size());
    if (spec.hidden.empty()) return;
    std::fill(s.obs.begin(), s.obs.end(), 0.0f);
    g.observe(s.obs.data());
    for (std::size_t k = 0; k < spec.hidden.size(); ++k) values[k] = s.obs[static_cast<std::size_t>(spec.hidden[k])];
}

}  // namespace

void move_features(const Game& g, const MoveFeatureSpec& spec, bool has_previous, std::uint64_t previous,
                   float* out, MoveFeatureScratch& s) {
    const int n = g.n_actions();
    std::memset(out, 0, sizeof(float) * static_cast<std::size_t>(n) * MOVE_FEATURES);
    s.mask.resize(static_cast<std::size_t>(n));
    s.after.resize(static_cast<std::size_t>(n));
    s.obs.resize(static_cast<std::size_t>(g.obs_size()));
    const int before = offered(g, s.mask.data());
    if (before == 0) return;
    unseen(g, spec, s, s.hidden);
    const int found = g.foundation_cards();
    for (int a = 0; a < n; ++a) {
        if (!s.mask[static_cast<std::size_t>(a)]) continue;
        float* row = out + static_cast<std::size_t>(a) * MOVE_FEATURES;
        row[F_LEGAL] = 1.0f;
        std::copy_n(spec.fixed.begin() + static_cast<std::ptrdiff_t>(a) * N_FIXED, N_FIXED, row + F_FIXED);
        const auto child = g.clone();
        child->apply(a);
        unseen(*child, spec, s, s.hidden_after);
        bool uncovers = false;
        for (std::size_t k = 0; k < s.hidden.size() && !uncovers; ++k) uncovers = s.hidden_after[k] < s.hidden[k];
        if (uncovers) {  // the position after it shows a card the player has not seen
            row[F_UNCOVERS] = 1.0f;
            continue;
        }
        const bool won = child->won();
        const int after = offered(*child, s.after.data());
        int opened = 0;
        for (int b = 0; b < n; ++b) opened += s.after[static_cast<std::size_t>(b)] && !s.mask[static_cast<std::size_t>(b)];
        row[F_GAINED] = clipped((child->foundation_cards() - found) / 4.0);
        row[F_WINS] = won ? 1.0f : 0.0f;
        row[F_MOBILITY] = clipped((after - before) / 8.0);
        row[F_OPENED] = clipped(opened / 8.0);
        row[F_DEAD_END] = (!won && after == 0) ? 1.0f : 0.0f;
        row[F_UNDOES] = (has_previous && child->canonical_hash() == previous) ? 1.0f : 0.0f;
    }
}

}  // namespace pg

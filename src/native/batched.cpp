// The batched stepper: PatienceEnv.step and TimeLimit, n games at a time (see batched.hpp).
#include "batched.hpp"

#include <cstring>
#include <stdexcept>
#include <utility>

namespace pg {

BatchedGames::BatchedGames(const std::string& name, const Options& options, int n,
                           int reward_mode, double illegal_reward, int max_steps)
    : reward_mode_(reward_mode), max_steps_(max_steps), illegal_reward_(illegal_reward) {
    if (n < 1) throw std::invalid_argument("num_envs must be >= 1, got " + std::to_string(n));
    if (reward_mode != 0 && reward_mode != 1) throw std::invalid_argument("reward_mode must be 0 or 1");
    games_.reserve(static_cast<std::size_t>(n));
    games_.push_back(make_game(name, options));
    for (int i = 1; i < n; ++i) games_.push_back(games_[0]->clone());
    const Game& g = *games_[0];
    n_actions_ = g.n_actions();
    obs_size_ = g.obs_size();
    pack_size_ = N_KINDS * g.n_packs();
    win_cards_ = g.win_cards();
    extra_names_ = g.extra_names();
    to_win_.assign(static_cast<std::size_t>(n), 1);
    elapsed_.assign(static_cast<std::size_t>(n), 0);
    live_.assign(static_cast<std::size_t>(n), 0);
    written_.assign(static_cast<std::size_t>(n), 0);
}

void BatchedGames::bind(const StepBuffers& out) {
    if (out.obs == bound_obs_ && out.mask == bound_mask_) return;
    // Other buffers than last time (the Python side binds one set for good; a caller passing new
    // ones must get every row in full).
    written_.assign(written_.size(), 0);
    bound_obs_ = out.obs;
    bound_mask_ = out.mask;
}

std::size_t BatchedGames::bytes_per_game() const {
    // The game object (state inline), its pointer and this class's per-game bookkeeping. The
    // caller's output buffers (observation, mask, ...) are counted on the Python side.
    return games_[0]->bytes() + sizeof(std::unique_ptr<Game>) + 2 * sizeof(int) + sizeof(std::uint8_t);
}

// Row i's outputs for game i's position. moved < 0: its observation row is cleared and written
// whole; else the row was unobserve_move'd before that move and is brought up to date.
void BatchedGames::write_row(int i, const StepBuffers& out, int moved) {
    const Game& g = *games_[static_cast<std::size_t>(i)];
    float* obs = out.obs + static_cast<std::size_t>(i) * static_cast<std::size_t>(obs_size_);
    if (moved < 0) {
        std::memset(obs, 0, sizeof(float) * static_cast<std::size_t>(obs_size_));
        g.observe(obs);
    } else {
        g.observe_move(moved, obs);
    }
    std::uint8_t* mask = out.mask + static_cast<std::size_t>(i) * static_cast<std::size_t>(n_actions_);
    const bool won = g.won();
    // PatienceEnv._refresh: a won game has no legal move; live while some move is legal.
    if (won) {
        std::memset(mask, 0, static_cast<std::size_t>(n_actions_));
    } else {
        g.legal_mask(mask);
    }
    bool live = false;
    for (int a = 0; a < n_actions_ && !live; ++a) live = mask[a] != 0;
    live_[static_cast<std::size_t>(i)] = live ? 1 : 0;
    out.won[i] = won ? 1 : 0;
    out.found[i] = g.foundation_cards();
    if (!extra_names_.empty()) g.extra_values(out.extras + static_cast<std::size_t>(i) * extra_names_.size());
    written_[static_cast<std::size_t>(i)] = 1;
}

void BatchedGames::deal_row(int i, const std::int32_t* pack, const StepBuffers& out) {
    Game& g = *games_[static_cast<std::size_t>(i)];
    std::vector<int> cards(pack, pack + pack_size_);
    g.checked_deal(cards);
    if (record_) {
        played_[static_cast<std::size_t>(i)].clear();
        ++deals_[static_cast<std::size_t>(i)];
    }
    // PatienceEnv.reset: rewards share out what is left to win after the deal.
    const int left = win_cards_ - g.foundation_cards();
    to_win_[static_cast<std::size_t>(i)] = left > 1 ? left : 1;
    elapsed_[static_cast<std::size_t>(i)] = 0;
    if (features_) has_previous_[static_cast<std::size_t>(i)] = 0;
    write_row(i, out);
    out.reward[i] = 0.0;
    out.terminated[i] = out.truncated[i] = out.illegal[i] = 0;
}

void BatchedGames::reset(const std::int32_t* packs, const std::uint8_t* reset, const StepBuffers& out) {
    bind(out);
    for (int i = 0; i < size(); ++i)
        if (reset[i]) deal_row(i, packs + static_cast<std::size_t>(i) * static_cast<std::size_t>(pack_size_), out);
}

void BatchedGames::step(const std::int64_t* actions, const std::int32_t* packs, const std::uint8_t* reset,
                        const StepBuffers& out) {
    bind(out);
    for (int i = 0; i < size(); ++i) {
        const auto row = static_cast<std::size_t>(i);
        if (reset[i]) {
            deal_row(i, packs + row * static_cast<std::size_t>(pack_size_), out);
            continue;
        }
        Game& g = *games_[row];
        const std::int64_t a = actions[i];
        double reward = 0.0;
        bool terminated = false, illegal = false, moved = false, diff = false;
        if (!live_[row]) {
            terminated = true;  // a finished game: reward 0, state unchanged
        } else if (a < 0 || a >= n_actions_ || !g.is_legal(static_cast<int>(a))) {
            reward = illegal_reward_;  // the mask excludes it: penalty, state unchanged
            illegal = true;
        } else {
            // The observation row by diff when it holds this game's: what the move changes goes
            // now, and comes back for the new position in write_row.
            moved = true;
            diff = written_[row] != 0;
            if (diff) g.unobserve_move(static_cast<int>(a), out.obs + row * static_cast<std::size_t>(obs_size_));
            const int before = g.foundation_cards();
            if (features_) {
                previous_[row] = g.canonical_hash();
                has_previous_[row] = 1;
            }
            g.apply(static_cast<int>(a));
            if (record_) played_[row].push_back(static_cast<int>(a));
            if (reward_mode_ == 1) {
                reward = g.won() ? 1.0 : 0.0;
            } else {
                reward = static_cast<double>(g.foundation_cards() - before) / static_cast<double>(to_win_[row]);
            }
        }
        if (diff) {
            write_row(i, out, static_cast<int>(a));
        } else if (moved || !written_[row]) {  // unchanged rows already in these buffers stay
            write_row(i, out);
        }
        if (!illegal && !terminated) terminated = !live_[row];
        // gymnasium's TimeLimit: every step counts, truncated once the limit is reached.
        const int elapsed = ++elapsed_[row];
        out.reward[i] = reward;
        out.terminated[i] = terminated ? 1 : 0;
        out.truncated[i] = (max_steps_ > 0 && elapsed >= max_steps_) ? 1 : 0;
        out.illegal[i] = illegal ? 1 : 0;
    }
}

void BatchedGames::set_move_features(MoveFeatureSpec spec) {
    if (spec.fixed.size() != static_cast<std::size_t>(n_actions_) * N_FIXED)
        throw std::invalid_argument("the move features' fixed columns must have n_actions rows");
    for (int k : spec.hidden)
        if (k < 0 || k >= obs_size_) throw std::invalid_argument("an unseen-card index is outside the observation");
    features_ = std::make_unique<MoveFeatureSpec>(std::move(spec));
    previous_.assign(games_.size(), 0);
    has_previous_.assign(games_.size(), 0);  // known from each game's next move on
}

void BatchedGames::move_features(const std::uint8_t* rows, float* out) {
    if (!features_) throw std::logic_error("set_move_features() first");
    const auto block = static_cast<std::size_t>(n_actions_) * MOVE_FEATURES;
    for (int i = 0; i < size(); ++i) {
        const auto row = static_cast<std::size_t>(i);
        if (rows[i]) pg::move_features(*games_[row], *features_, has_previous_[row] != 0, previous_[row],
                                       out + row * block, scratch_);
    }
}

namespace {

// The 0/1 bytes of a mask 8 at a time: the sum of a word's bytes (each 0 or 1) by one multiply.
inline int legal_in_word(const std::uint8_t* p) {
    std::uint64_t w;
    std::memcpy(&w, p, sizeof w);
    return static_cast<int>((w * 0x0101010101010101ULL) >> 56);
}

}  // namespace

void BatchedGames::sample_legal(const std::uint8_t* mask, std::int64_t* out) {
    for (int i = 0; i < size(); ++i) {
        const std::uint8_t* row = mask + static_cast<std::size_t>(i) * static_cast<std::size_t>(n_actions_);
        int count = 0, a = 0;
        for (; a + 8 <= n_actions_; a += 8) count += legal_in_word(row + a);
        for (; a < n_actions_; ++a) count += row[a] != 0;
        out[i] = 0;
        if (count == 0) continue;
        // splitmix64, then a multiply-shift to [0, count)
        std::uint64_t z = (sampler_ += 0x9E3779B97F4A7C15ULL);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        z ^= z >> 31;
        auto k = static_cast<int>(((z >> 32) * static_cast<std::uint64_t>(count)) >> 32);
        // the k-th legal id (from 0): whole words skipped while they hold k or fewer
        a = 0;
        for (int in_word; a + 8 <= n_actions_ && (in_word = legal_in_word(row + a)) <= k; a += 8) k -= in_word;
        for (; a < n_actions_; ++a)
            if (row[a] && k-- == 0) {
                out[i] = a;
                break;
            }
    }
}

}  // namespace pg

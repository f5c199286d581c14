// n games of one variant stepped together: the engine behind patience_gym/vector.py.
//
// Each step does, per game, exactly what PatienceEnv.step (wrapped in gymnasium's TimeLimit) does,
// plus Gymnasium 1.x NEXT_STEP autoreset: a game that ended (terminated or truncated) on the
// previous step is dealt again from the pack the caller hands in, its action ignored, and reports
// the reset observation with reward 0 and neither flag set. The caller (Python) says which rows
// to reset and shuffles their packs, so one numpy Generator per env deals the same games as N
// single environments seeded alike. Buffers are the caller's (numpy arrays), written in place.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core.hpp"
#include "move_features.hpp"

namespace pg {

struct StepBuffers {
    float* obs;              // (n, obs_size), written in full for every game
    std::uint8_t* mask;      // (n, n_actions), 0/1
    double* reward;          // (n,)
    std::uint8_t* terminated, *truncated, *won, *illegal;  // (n,) 0/1
    std::int64_t* found;     // (n,) foundation cards
    std::int64_t* extras;    // (n, n_extras)
};

class BatchedGames {
public:
    // reward_mode: 0 "foundation" (cards gained / cards left to win at reset), 1 "win".
    // max_steps <= 0: no step limit.
    BatchedGames(const std::string& name, const Options& options, int n, int reward_mode,
                 double illegal_reward, int max_steps);
    BatchedGames(const BatchedGames&) = delete;  // owns its games
    BatchedGames& operator=(const BatchedGames&) = delete;

    int size() const { return static_cast<int>(games_.size()); }
    int n_actions() const { return n_actions_; }
    int obs_size() const { return obs_size_; }
    int pack_size() const { return pack_size_; }
    const std::vector<std::string>& extra_names() const { return extra_names_; }
    std::size_t bytes_per_game() const;

    // Deal row i from packs[i] for every i with reset[i] != 0 and fill its outputs (reward 0,
    // flags 0). Rows not reset are left untouched in the buffers.
    void reset(const std::int32_t* packs, const std::uint8_t* reset, const StepBuffers& out);
    // One step of every game: rows with reset[i] != 0 are dealt from packs[i] (NEXT_STEP
    // autoreset, action ignored); the others take actions[i].
    void step(const std::int64_t* actions, const std::int32_t* packs, const std::uint8_t* reset,
              const StepBuffers& out);

    // A uniformly random legal action per game from the masks of the last call (0 where none),
    // from the batch's own generator (splitmix64, seeded by seed_sampler): random rollouts and
    // benchmarks without a numpy pass over the (n, n_actions) masks.
    void sample_legal(const std::uint8_t* mask, std::int64_t* out);
    void seed_sampler(std::uint64_t seed) { sampler_ = seed; }

    Game& game(int i) { return *games_.at(static_cast<std::size_t>(i)); }

    // With record(true), each game's actions since its deal are kept (played(i)), and deals(i)
    // counts its deals, so a Python twin can follow it for the text (render): C++ draws no text.
    // Off by default; patience_gym.vector turns it on for every batch before the first reset, as
    // copying and pickling a batch replay each row's moves too (keeping them cost no measurable time).
    void record(bool on) {
        record_ = on;
        played_.resize(on ? games_.size() : 0);
        deals_.resize(on ? games_.size() : 0);
    }
    const std::vector<int>& played(int i) const { return played_.at(static_cast<std::size_t>(i)); }
    std::uint64_t deals(int i) const { return deals_.at(static_cast<std::size_t>(i)); }

    // The move features (move_features.hpp) of every game of rows (0/1 per game) into out, (n,
    // n_actions, MOVE_FEATURES). set_move_features first: from then on each game keeps the
    // canonical hash of its position before its last move (column "undoes"), one hash per move.
    void set_move_features(MoveFeatureSpec spec);
    void move_features(const std::uint8_t* rows, float* out);
    bool has_move_features() const { return features_ != nullptr; }

private:
    void deal_row(int i, const std::int32_t* pack, const StepBuffers& out);
    void write_row(int i, const StepBuffers& out, int moved = -1);
    // Whether out are the buffers of the last call; if not, every row is rewritten in full.
    void bind(const StepBuffers& out);

    std::vector<std::unique_ptr<Game>> games_;
    std::vector<int> to_win_, elapsed_;
    std::vector<std::uint8_t> live_;
    // written_[i]: row i of the bound buffers holds game i's current outputs, so a step that
    // changes nothing (an illegal action, a finished game) leaves it as it is, and a move
    // rewrites its observation by diff (Game::unobserve before the move, observe after).
    std::vector<std::uint8_t> written_;
    const float* bound_obs_ = nullptr;
    const std::uint8_t* bound_mask_ = nullptr;
    int n_actions_, obs_size_, pack_size_, win_cards_, reward_mode_, max_steps_;
    double illegal_reward_;
    std::uint64_t sampler_ = 0x9E3779B97F4A7C15ULL;
    std::vector<std::string> extra_names_;
    bool record_ = false;
    std::vector<std::vector<int>> played_;
    std::vector<std::uint64_t> deals_;
    std::unique_ptr<MoveFeatureSpec> features_;
    MoveFeatureScratch scratch_;
    std::vector<std::uint64_t> previous_;  // each game's position before its last move (hash)
    std::vector<std::uint8_t> has_previous_;
};

}  // namespace pg

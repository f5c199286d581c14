// What each legal move does, as a few numbers per action: the input of the per-move scoring policy
// (agents/policies/move_policy.py), computed here so the batched engine gives them with every step.
//
// Generic over the Game contract: each legal move is played on a copy of the game, and the copy
// is compared with the position before it (legal moves, foundation cards, the canonical hash).
// What Python declares of the variant (the action table's kinds and places, the observation
// entries that hold unseen cards) arrives once as a MoveFeatureSpec, built by
// patience_gym/move_features.py, which also documents every column in one table.
//
// Nothing hidden is read: a move after which some unseen-card entry of the observation is lower
// (it turns a card up, deals from the pack) gets only its description (legal, uncovers, kind,
// source, target); every column that reads the position after it is left 0, as that position
// shows the card. The columns never hold another policy's choice, a heuristic or a search result.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "core.hpp"

namespace pg {

// The columns, in order: the one source of truth for their number and names (Python reads them
// through patience_gym._native.move_feature_names()).
inline constexpr std::array<const char*, 11> MOVE_FEATURE_NAMES = {
    "legal", "gained", "wins", "uncovers", "mobility", "opened", "dead_end", "undoes", "kind", "source", "target"};
constexpr int MOVE_FEATURES = static_cast<int>(MOVE_FEATURE_NAMES.size());
// The columns that describe the action alone, given by Python per action (MoveFeatureSpec::fixed).
constexpr int F_FIXED = 8, N_FIXED = MOVE_FEATURES - F_FIXED;

// What Python declares of the variant: per action its N_FIXED fixed columns (kind, source,
// target), and the observation entries that count unseen cards (a card in a face-down place of
// card_place, the unseen and pack_size segments).
struct MoveFeatureSpec {
    std::vector<float> fixed;  // (n_actions, N_FIXED)
    std::vector<int> hidden;   // observation indices, each < obs_size
};

// Buffers reused from call to call (one per caller: a batch, a single game's call).
struct MoveFeatureScratch {
    std::vector<float> obs, hidden, hidden_after;
    std::vector<std::uint8_t> mask, after;
};

// Write the (n_actions, MOVE_FEATURES) block of game g into out: a zero row for every action the
// env does not offer (all of them once the game is won). previous: the canonical hash of the
// position before the last move, when there was one (has_previous).
void move_features(const Game& g, const MoveFeatureSpec& spec, bool has_previous, std::uint64_t previous,
                   float* out, MoveFeatureScratch& scratch);

}  // namespace pg

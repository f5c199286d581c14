// Rollouts for the planner (agents/planner.py, rollouts=N): a fast base policy played to the end
// of a sampled deal, so that a move can be valued by where the game goes after it.
//
// The base policy plays single legal actions (never the solver's macro moves, which read ahead in
// the stock), choosing at each position the action that
//   1. leads to a position not met before in this rollout (a rollout stops when none does),
//   2. puts the most cards on the foundations (automatic steps included),
//   3. has the variant's highest Game::move_priority() (the solver's ordering: for most variants
//      greedy's preferences, agents/heuristics/),
//   4. has the lowest id.
// It looks one move ahead, like greedy: the foundation count and the priority read the position
// a move reaches, which on a sampled deal holds the sample's guesses, never the real game's cards.
#pragma once

#include <vector>

#include "core.hpp"

namespace pg {

// Play the base policy on g (changed in place) until it is won, no legal action leads to a new
// position, or max_steps actions were played; the foundation cards at the end.
// With `line`, the actions played are appended to it.
int rollout(Game& g, int max_steps, std::vector<int>* line = nullptr);

// The base policy's first choice among `moves` (each must be legal in g; positions met are not
// considered): the most foundation cards won, then the highest move priority, then the lowest id.
int preferred(const Game& g, const std::vector<int>& moves);

// For each of `actions` (each must be legal in `start`): play it on a copy of `start`, then roll
// out for at most max_steps - 1 more actions; the foundation cards each rollout ends with.
std::vector<int> rollouts(const Game& start, const std::vector<int>& actions, int max_steps);

}  // namespace pg

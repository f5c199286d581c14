// A layered beam search for the solver (every card known), for games whose play advances through
// the pack in one direction: Game::beam_layer() never decreases along a line of play (Light and
// Shade: the cards taken from the pack in this pass, passes counted first).
//
// Layer by layer, lowest first: the positions of a layer are expanded to every position reachable
// from them inside the layer (single legal actions, the variant's safe move alone where it names
// one, canonical positions met once per layer); the moves that leave the layer (turning the next
// card, say) give the candidates of later layers. When a layer holds more than `width`
// candidates, only the `width` best by Game::beam_score() go on (ties: the order they were met).
//
// Where the depth-first search (solver.hpp) stays below its first choices near the root, the
// beam compares positions that have taken the same cards from the pack, so one early choice
// never hides the others. Verdicts: Won (with the actions); Lost only when no layer was ever cut
// (then every reachable position was searched, as in the depth-first search); Unknown otherwise,
// or when the node or time budget ran out.
#pragma once

#include <cstdint>

#include "core.hpp"
#include "solver.hpp"

namespace pg {

// Beam search from `start` (not modified): width > 0, max_nodes > 0, max_seconds <= 0 means no
// time limit. The variant must have layers (Game::beam_layer() >= 0; std::invalid_argument if not).
SolveResult beam_solve(const Game& start, std::uint64_t width, std::uint64_t max_nodes, double max_seconds);

}  // namespace pg

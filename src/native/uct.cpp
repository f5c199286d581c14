// The information-set UCT of uct.hpp.
#include "uct.hpp"

#include "solver.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <unordered_set>

namespace pg {
namespace {

std::uint64_t mix(std::uint64_t h) {  // splitmix64's finaliser
    h ^= h >> 30;
    h *= 0xBF58476D1CE4E5B9ULL;
    h ^= h >> 27;
    h *= 0x94D049BB133111EBULL;
    return h ^ (h >> 31);
}

// What the player sees in g: a hash of its observation (which tests/games/test_determinize.py
// shows is the same on every deal consistent with what was seen).
std::uint64_t seen_hash_into(const Game& g, std::vector<float>& buf) {
    std::fill(buf.begin(), buf.end(), 0.0f);
    g.observe(buf.data());
    return observation_hash(buf.data(), buf.size());
}

struct Edge {
    int action;
    int priority;
    int n = 0;
    double w = 0.0;
};

struct Node {
    int n = 0;
    std::vector<Edge> edges;  // the legal actions when the node was made, ascending
};

// The node's edges: the legal actions of g, less those that lead back to a position the player
// has seen before, on the real game (`visited`) or on the walk down to g (`path`, g's included):
// a move back only repeats what was played (a cycle of turns through the stock, a card moved to
// and fro), so the search never spends walks on it.
void expand(Node& node, const Game& g, const std::unordered_set<std::uint64_t>& visited,
            const std::vector<std::uint64_t>& path, std::vector<std::uint8_t>& mask, std::vector<float>& buf) {
    g.legal_mask(mask.data());
    for (int a = 0; a < g.n_actions(); ++a) {
        if (!mask[static_cast<std::size_t>(a)]) continue;
        auto child = g.clone();
        child->apply(a);
        const std::uint64_t h = seen_hash_into(*child, buf);
        if (visited.count(h) || std::find(path.begin(), path.end(), h) != path.end()) continue;
        node.edges.push_back({a, g.move_priority(a)});
    }
}

// UCB1 among the edges legal in g (all of them, as the samples agree on what is legal): an edge
// never tried first (the highest move priority, then the lowest id), else the best bound.
int select(const Node& node, const Game& g, double c) {
    int best = -1;
    double best_score = 0.0;
    const double log_n = std::log(static_cast<double>(node.n) + 1.0);
    for (std::size_t i = 0; i < node.edges.size(); ++i) {
        const Edge& e = node.edges[i];
        if (!g.is_legal(e.action)) continue;
        const double score = e.n == 0 ? 1e9 + e.priority
                                      : e.w / e.n + c * std::sqrt(log_n / static_cast<double>(e.n));
        if (best < 0 || score > best_score) best = static_cast<int>(i), best_score = score;
    }
    return best;
}

// The rollout of one game (replaced by where it ends) for at most max_moves macro moves (the base
// policy of uct.hpp): its value; *moves_played gets the macro moves it played.
double uct_rollout(std::unique_ptr<Game>& game, int max_moves, int* moves_played) {
    Game* g = game.get();
    std::unordered_set<std::uint64_t> met{g->canonical_hash()};
    std::vector<Game::SolverMove> moves;
    for (int step = 0; step < max_moves && !g->won(); ++step) {
        const int safe = g->safe_move();
        if (safe >= 0) {
            g->apply(safe);
            met.insert(g->canonical_hash());
            continue;
        }
        if (g->dead()) break;
        moves.clear();
        g->solver_moves(moves);
        std::unique_ptr<Game> best;
        std::uint64_t best_hash = 0;
        int best_gain = 0, best_priority = 0;
        const int before = g->foundation_cards();
        for (const auto& m : moves) {
            auto child = g->clone();
            for (int a : m.actions) child->apply(a);
            const std::uint64_t h = child->canonical_hash();
            if (met.count(h)) continue;
            const int gain = child->foundation_cards() - before;
            if (!best || gain > best_gain || (gain == best_gain && m.priority > best_priority)) {
                best = std::move(child);
                best_hash = h, best_gain = gain, best_priority = m.priority;
            }
        }
        if (!best) break;  // every move leads back
        met.insert(best_hash);
        game = std::move(best);
        g = game.get();
        if (moves_played) ++*moves_played;
    }
    return g->won() ? 1.0 : static_cast<double>(g->foundation_cards()) / g->win_cards();
}

}  // namespace

std::uint64_t observation_hash(const float* obs, std::size_t n) {
    std::uint64_t h = 0x9E3779B97F4A7C15ULL;
    for (std::size_t i = 0; i < n; ++i) {
        if (obs[i] == 0.0f) continue;  // sparse: hash the places that are set, with their index
        std::uint32_t bits;
        std::memcpy(&bits, &obs[i], sizeof bits);
        h = mix(h ^ ((static_cast<std::uint64_t>(i) << 32) | bits));
    }
    return h;
}

UctResult uct_search(const std::vector<const Game*>& samples, const UctSettings& s,
                     const std::unordered_set<std::uint64_t>& visited) {
    if (samples.empty()) throw std::invalid_argument("uct_search needs at least one sample");
    if (s.iterations < 1) throw std::invalid_argument("iterations must be >= 1");
    const Game& first = *samples.front();
    std::vector<std::uint8_t> mask(static_cast<std::size_t>(first.n_actions()));
    std::vector<float> buf(static_cast<std::size_t>(first.obs_size()));
    std::unordered_map<std::uint64_t, Node> tree;  // element references survive rehashing
    constexpr std::uint64_t ROOT = 0x243F6A8885A308D3ULL;
    Node& root = tree[ROOT];
    std::vector<std::uint64_t> seen{seen_hash_into(first, buf)};  // on the walk: its positions' hashes
    expand(root, first, visited, seen, mask, buf);
    if (root.edges.empty()) expand(root, first, {}, {}, mask, buf);  // every move leads back: all of them
    UctResult out;
    std::vector<std::pair<Node*, int>> path;
    for (int it = 0; it < s.iterations && !root.edges.empty(); ++it) {
        auto g = samples[static_cast<std::size_t>(it) % samples.size()]->clone();
        std::uint64_t key = ROOT;
        Node* node = &root;
        path.clear();
        seen.resize(1);
        double value = -1.0;
        for (int depth = 0;; ++depth) {
            if (g->won()) {
                value = 1.0;
                break;
            }
            const int i = depth >= s.max_depth ? -1 : select(*node, *g, s.exploration);
            if (i < 0) break;  // too deep, or no legal move: the rollout values it
            const int a = node->edges[static_cast<std::size_t>(i)].action;
            path.emplace_back(node, i);
            g->apply(a);
            seen.push_back(seen_hash_into(*g, buf));
            key = mix(mix(key ^ (static_cast<std::uint64_t>(a) + 1)) ^ seen.back());
            auto [slot, made] = tree.try_emplace(key);
            node = &slot->second;
            if (made) {
                expand(*node, *g, visited, seen, mask, buf);
                break;
            }
        }
        int tail = 0;  // actions after the tree's: the rollout's moves, the solver's winning line
        if (value < 0 && s.leaf_nodes > 0) {
            const auto n = static_cast<std::uint64_t>(s.leaf_nodes);
            const SolveResult r = solve(*g, n, 0.0, n);
            value = r.verdict == Verdict::Won ? 1.0 : static_cast<double>(r.best_cards) / g->win_cards();
            tail = static_cast<int>(r.verdict == Verdict::Won ? r.actions.size() : r.best_line.size());
            out.rollout_steps += r.nodes;
        }
        if (value < 0) {
            value = uct_rollout(g, s.rollout_moves, &tail);
            out.rollout_steps += static_cast<std::uint64_t>(tail);
        }
        double v = value * std::pow(s.discount, tail);
        for (std::size_t d = path.size(); d-- > 0;) {  // from the leaf up: one more action each level
            auto& [n, i] = path[d];
            ++n->n;
            Edge& e = n->edges[static_cast<std::size_t>(i)];
            ++e.n;
            e.w += v;
            v *= s.discount;
        }
    }
    for (const Edge& e : root.edges) {
        out.actions.push_back(e.action);
        out.visits.push_back(e.n);
        out.values.push_back(e.n ? e.w / e.n : 0.0);
    }
    out.nodes = tree.size();
    return out;
}

}  // namespace pg

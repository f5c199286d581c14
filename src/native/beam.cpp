// The layered beam search of beam.hpp.
#include "beam.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <stdexcept>
#include <unordered_set>
#include <vector>

namespace pg {
namespace {

// The actions of every line, stored once: each step names the step before it (-1: the start).
struct Step {
    std::int64_t parent;
    int action;
};

struct Node {
    std::unique_ptr<Game> game;
    std::int64_t step;  // the last step of the line to it (-1: the start)
    double score;
    std::uint64_t hash;
};

std::vector<int> line_to(const std::vector<Step>& steps, std::int64_t s) {
    std::vector<int> line;
    for (; s >= 0; s = steps[static_cast<std::size_t>(s)].parent) line.push_back(steps[static_cast<std::size_t>(s)].action);
    std::reverse(line.begin(), line.end());
    return line;
}

// Keep the `width` best candidates (highest score; ties: the order they were met).
void cut_to(std::vector<Node>& nodes, std::uint64_t width) {
    std::stable_sort(nodes.begin(), nodes.end(), [](const Node& x, const Node& y) { return x.score > y.score; });
    nodes.resize(static_cast<std::size_t>(width));
}

class Beam {
public:
    Beam(std::uint64_t width, std::uint64_t max_nodes, double max_seconds)
        : width_(width), budget_{max_nodes, max_seconds, std::chrono::steady_clock::now()} {}

    Verdict run(const Game& start, SolveResult& result) {
        result.best_cards = start.foundation_cards();
        if (start.won()) return Verdict::Won;
        add(start.clone(), -1, start.beam_layer());
        while (!pending_.empty()) {
            auto first = pending_.begin();
            const int layer = first->first;
            std::vector<Node> nodes = std::move(first->second);
            pending_.erase(first);
            met_.erase(layer);
            if (nodes.size() > width_) {
                cut_to(nodes, width_);
                cut_ = true;
            }
            const Verdict v = expand(layer, std::move(nodes), result);
            if (v != Verdict::Lost) return v;
        }
        return cut_ ? Verdict::Unknown : Verdict::Lost;
    }

    std::uint64_t nodes() const { return budget_.nodes; }
    std::uint64_t positions() const { return positions_; }

private:
    // A candidate of a later layer (or the start), met once per layer.
    void add(std::unique_ptr<Game> g, std::int64_t step, int layer) {
        const std::uint64_t h = position_hash(*g);
        if (!met_[layer].insert(h).second) return;
        const double score = g->beam_score();
        auto& nodes = pending_[layer];
        nodes.push_back({std::move(g), step, score, h});
        ++positions_;
        if (nodes.size() >= 8 * width_) {  // bound the memory: cut early (the layer is cut anyway)
            cut_to(nodes, width_);
            cut_ = true;
        }
    }

    // Every position reachable inside `layer` from `nodes`; candidates of later layers noted.
    // Lost here means "searched, no win": the caller goes on with the next layer.
    Verdict expand(int layer, std::vector<Node> stack, SolveResult& result) {
        std::unordered_set<std::uint64_t> seen;
        for (const auto& n : stack) seen.insert(n.hash);
        std::vector<std::uint8_t> mask;
        std::vector<int> moves;
        while (!stack.empty()) {
            Node n = std::move(stack.back());
            stack.pop_back();
            const Game& g = *n.game;
            if (g.foundation_cards() > result.best_cards) {
                result.best_cards = g.foundation_cards();
                result.best_line = line_to(steps_, n.step);
            }
            moves.clear();
            const int safe = use_hooks ? g.safe_move() : -1;
            if (safe >= 0) {
                moves.push_back(safe);
            } else {
                mask.resize(static_cast<std::size_t>(g.n_actions()));
                g.legal_mask(mask.data());
                for (int a = 0; a < g.n_actions(); ++a)
                    if (mask[static_cast<std::size_t>(a)]) moves.push_back(a);
            }
            for (int a : moves) {
                if (!budget_.spend()) return Verdict::Unknown;
                auto child = g.clone();
                child->apply(a);
                steps_.push_back({n.step, a});
                const auto step = static_cast<std::int64_t>(steps_.size()) - 1;
                if (child->won()) {
                    result.actions = line_to(steps_, step);
                    return Verdict::Won;
                }
                if (use_hooks && child->dead()) continue;  // nothing behind it can win (Game::dead)
                const int to = child->beam_layer();
                if (to > layer) {
                    add(std::move(child), step, to);
                    continue;
                }
                const std::uint64_t h = position_hash(*child);
                if (!seen.insert(h).second) continue;
                ++positions_;
                stack.push_back({std::move(child), step, 0.0, h});
            }
        }
        return Verdict::Lost;
    }

    std::uint64_t width_;
    Budget budget_;
    std::uint64_t positions_ = 0;
    bool cut_ = false;  // some layer lost candidates to the width: no proof of loss
    std::vector<Step> steps_;
    std::map<int, std::vector<Node>> pending_;             // layer -> its candidates
    std::map<int, std::unordered_set<std::uint64_t>> met_;  // layer -> their hashes
};

}  // namespace

SolveResult beam_solve(const Game& start, std::uint64_t width, std::uint64_t max_nodes, double max_seconds) {
    if (start.beam_layer() < 0) throw std::invalid_argument("this game has no beam layers (Game::beam_layer)");
    const auto t0 = std::chrono::steady_clock::now();
    SolveResult result;
    Beam beam(width, max_nodes, max_seconds);
    result.verdict = beam.run(start, result);
    result.nodes = std::min(beam.nodes(), max_nodes);
    result.positions = beam.positions();
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return result;
}

}  // namespace pg

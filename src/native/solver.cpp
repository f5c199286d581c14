// The solver of solver.hpp: an explicit-stack depth-first search (no recursion, so a long line
// of play cannot overflow the C++ stack).
#include "solver.hpp"

#include <algorithm>
#include <chrono>
#include <functional>
#include <memory>
#include <string_view>
#include <unordered_map>

namespace pg {
namespace {

// A set of 64-bit position hashes: open addressing, linear probing, 0 marks an empty slot.
class HashSet {
public:
    HashSet() : slots_(1u << 16, 0) {}

    // Insert h; false when it was there already.
    bool insert(std::uint64_t h) {
        if (h == 0) h = 1;
        if (2 * (size_ + 1) > slots_.size()) grow();
        return place(slots_, h);
    }
    std::uint64_t size() const { return size_; }

private:
    bool place(std::vector<std::uint64_t>& slots, std::uint64_t h) {
        const std::size_t mask = slots.size() - 1;
        for (std::size_t i = static_cast<std::size_t>(h * 0x9E3779B97F4A7C15ULL) & mask;; i = (i + 1) & mask) {
            if (slots[i] == h) return false;
            if (slots[i] == 0) {
                slots[i] = h;
                ++size_;
                return true;
            }
        }
    }
    void grow() {
        std::vector<std::uint64_t> bigger(slots_.size() * 2, 0);
        size_ = 0;
        for (std::uint64_t h : slots_)
            if (h) place(bigger, h);
        slots_.swap(bigger);
    }
    std::vector<std::uint64_t> slots_;
    std::uint64_t size_ = 0;
};

std::uint64_t hash_of(const Game& g) {
    if (use_hooks) return g.canonical_hash();
    const std::string key = g.state_key();
    return std::hash<std::string>{}(key);
}

struct Child {
    int gain;                 // foundation cards won by the move (automatic steps included)
    int priority;             // the variant's priority for the move
    std::vector<int> line;    // the move: one action, or a variant's macro move (solver_moves)
    std::unique_ptr<Game> game;
};

// The move ordering (solver.hpp), shared by the probe and the search: children are popped from
// the back, so the best goes last: more foundation cards won, then the variant's priority, then
// the table's order.
void order(std::vector<Child>& children) {
    std::stable_sort(children.begin(), children.end(), [](const Child& x, const Child& y) {
        if (x.gain != y.gain) return x.gain < y.gain;
        if (x.priority != y.priority) return x.priority < y.priority;
        return x.line > y.line;
    });
}

// One position on the current line: its children still to try, best first (popped from the back).
struct Frame {
    std::vector<int> line;  // the move that led here (empty at the root)
    std::vector<Child> children;
};

}  // namespace

// The probe (solver.hpp): limited discrepancy search. Round k follows the best-ordered child
// everywhere except on at most k moves of a line; a position met again is searched again only
// with more discrepancies left than before. Round 0 is one line of the ordering's first choices.
// Returns the winning line when one is found; used counts the nodes generated.
namespace {
bool probe(const Game& start, std::uint64_t max_nodes, double max_seconds, std::chrono::steady_clock::time_point t0,
           std::uint64_t& used, std::vector<int>& won_line) {
    using Clock = std::chrono::steady_clock;
    std::vector<Game::SolverMove> moves;
    struct PFrame {
        std::vector<int> line;
        std::vector<Child> children;
        int discrepancies;  // used on the way here
        bool first = true;  // the next child popped is this position's best
    };
    for (int k = 0;; ++k) {
        // position -> the most discrepancies to spare it was searched with
        std::unordered_map<std::uint64_t, int> left;
        left.reserve(1024);
        bool out = false, pruned = false;
        auto expand = [&](const Game& g, int spare, std::vector<Child>& outv) -> bool {
            const int before = g.foundation_cards();
            const int safe = g.safe_move();
            moves.clear();
            if (safe >= 0)
                moves.push_back({{safe}, 0});
            else
                g.solver_moves(moves);
            for (auto& move : moves) {
                if (++used > max_nodes ||
                    ((used & 1023) == 0 && max_seconds > 0 &&
                     std::chrono::duration<double>(Clock::now() - t0).count() > max_seconds)) {
                    out = true;
                    return false;
                }
                auto child = g.clone();
                for (int a : move.actions) child->apply(a);
                if (child->won()) {
                    outv.clear();
                    outv.push_back({0, 0, std::move(move.actions), nullptr});
                    return true;
                }
                const auto h = hash_of(*child);
                auto it = left.find(h);
                if (it != left.end() && it->second >= spare) continue;
                const int gain = child->foundation_cards() - before;
                outv.push_back({gain, move.priority, std::move(move.actions), std::move(child)});
            }
            order(outv);
            return false;
        };
        std::vector<PFrame> line;
        left[hash_of(start)] = k;
        line.push_back({{}, {}, 0});
        bool won = expand(start, k, line.back().children);
        while (!won && !line.empty() && !out) {
            auto& top = line.back();
            if (top.children.empty()) {
                line.pop_back();
                continue;
            }
            const int d = top.discrepancies + (top.first ? 0 : 1);
            if (d > k) {  // every other child is a discrepancy too
                pruned = true;
                line.pop_back();
                continue;
            }
            top.first = false;
            Child next = std::move(top.children.back());
            top.children.pop_back();
            const auto h = hash_of(*next.game);
            auto it = left.find(h);
            if (it != left.end() && it->second >= k - d) continue;  // searched with as much to spare
            left[h] = k - d;
            line.push_back({std::move(next.line), {}, d});
            won = expand(*next.game, k - d, line.back().children);
        }
        if (won) {
            for (std::size_t i = 1; i < line.size(); ++i)
                won_line.insert(won_line.end(), line[i].line.begin(), line[i].line.end());
            const auto& last = line.back().children.back().line;
            won_line.insert(won_line.end(), last.begin(), last.end());
            return true;
        }
        if (out || !pruned) return false;  // budget spent, or round k saw every line: nothing new
    }
}
}  // namespace

SolveResult solve(const Game& start, std::uint64_t max_nodes, double max_seconds, std::uint64_t probe_nodes) {
    using Clock = std::chrono::steady_clock;
    const auto t0 = Clock::now();
    SolveResult result;
    auto finish = [&](Verdict v) {
        result.verdict = v;
        result.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
        return result;
    };
    if (start.won()) return finish(Verdict::Won);

    if (use_hooks && probe_nodes > 0) {
        std::uint64_t used = 0;
        const bool won = probe(start, std::min(probe_nodes, max_nodes), max_seconds, t0, used, result.actions);
        result.nodes = std::min(used, std::min(probe_nodes, max_nodes));
        if (won) return finish(Verdict::Won);
    }

    HashSet seen;
    seen.insert(hash_of(start));
    std::vector<std::uint8_t> mask(static_cast<std::size_t>(start.n_actions()));
    std::vector<Game::SolverMove> moves;
    bool out_of_budget = false;
    std::unique_ptr<Game> won_game;

    // The children of g worth searching, best last; sets won_game when one of them wins.
    auto expand = [&](const Game& g, std::vector<Child>& out) {
        const int before = g.foundation_cards();
        const int safe = use_hooks ? g.safe_move() : -1;
        moves.clear();
        if (safe >= 0) {
            moves.push_back({{safe}, 0});
        } else if (use_hooks) {
            g.solver_moves(moves);
        } else {
            g.legal_mask(mask.data());
            for (int a = 0; a < g.n_actions(); ++a)
                if (mask[static_cast<std::size_t>(a)]) moves.push_back({{a}, 0});
        }
        for (auto& move : moves) {
            if (++result.nodes > max_nodes ||
                ((result.nodes & 1023) == 0 && max_seconds > 0 &&
                 std::chrono::duration<double>(Clock::now() - t0).count() > max_seconds)) {
                out_of_budget = true;
                return;
            }
            auto child = g.clone();
            for (int a : move.actions) child->apply(a);
            if (child->won()) {
                out.clear();
                out.push_back({0, 0, std::move(move.actions), nullptr});
                won_game = std::move(child);
                return;
            }
            if (!seen.insert(hash_of(*child))) continue;
            out.push_back({child->foundation_cards() - before, move.priority, std::move(move.actions), std::move(child)});
        }
        order(out);
    };

    std::vector<Frame> line;
    line.push_back({{}, {}});
    expand(start, line.back().children);
    while (!line.empty() && !out_of_budget) {
        if (won_game) {
            for (std::size_t i = 1; i < line.size(); ++i)
                result.actions.insert(result.actions.end(), line[i].line.begin(), line[i].line.end());
            const auto& last = line.back().children.back().line;
            result.actions.insert(result.actions.end(), last.begin(), last.end());
            result.positions = seen.size();
            return finish(Verdict::Won);
        }
        auto& children = line.back().children;
        if (children.empty()) {
            line.pop_back();
            continue;
        }
        Child next = std::move(children.back());
        children.pop_back();
        line.push_back({std::move(next.line), {}});
        expand(*next.game, line.back().children);
    }
    result.positions = seen.size();
    return finish(out_of_budget ? Verdict::Unknown : Verdict::Lost);
}

}  // namespace pg

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

struct Child {
    int gain;                 // foundation cards won by the move (automatic steps included)
    int priority;             // the variant's priority for the move
    std::vector<int> line;    // the move: one action, or a variant's macro move (solver_moves)
    std::unique_ptr<Game> game;
    std::uint64_t hash = 0;   // position_hash(*game)
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
    int discrepancies = 0;  // the probe's: used on the way here
    bool first = true;      // the probe's: the next child popped is this position's best
};

// The actions from the root to the winning child of the last frame (expand() left it alone there).
void append_winning_line(const std::vector<Frame>& line, std::vector<int>& out) {
    for (std::size_t i = 1; i < line.size(); ++i) out.insert(out.end(), line[i].line.begin(), line[i].line.end());
    const auto& last = line.back().children.back().line;
    out.insert(out.end(), last.begin(), last.end());
}

// Record the position entered at the end of `line` (reached by its frames' moves) when it has
// more foundation cards than any before it (SolveResult::best_cards).
void note_progress(const std::vector<Frame>& line, const Game& entered, SolveResult& result) {
    const int cards = entered.foundation_cards();
    if (cards <= result.best_cards) return;
    result.best_cards = cards;
    result.best_line.clear();
    for (std::size_t i = 1; i < line.size(); ++i)
        result.best_line.insert(result.best_line.end(), line[i].line.begin(), line[i].line.end());
}

enum class Expanded { Searched, Won, OutOfBudget };

// The children of g that `fresh(hash)` admits, ordered (best last); on Won, `out` holds only the
// winning move. With the hooks: the variant's safe move alone or its solver_moves(); without:
// every legal action alone.
template <class Fresh>
Expanded expand(const Game& g, Budget& budget, std::vector<Game::SolverMove>& moves, std::vector<std::uint8_t>& mask,
                Fresh&& fresh, std::vector<Child>& out) {
    const int before = g.foundation_cards();
    const int safe = use_hooks ? g.safe_move() : -1;
    moves.clear();
    if (safe >= 0) {
        moves.push_back({{safe}, 0});
    } else if (use_hooks) {
        g.solver_moves(moves);
    } else {
        mask.resize(static_cast<std::size_t>(g.n_actions()));
        g.legal_mask(mask.data());
        for (int a = 0; a < g.n_actions(); ++a)
            if (mask[static_cast<std::size_t>(a)]) moves.push_back({{a}, 0});
    }
    for (auto& move : moves) {
        if (!budget.spend()) return Expanded::OutOfBudget;
        auto child = g.clone();
        for (int a : move.actions) child->apply(a);
        if (child->won()) {
            out.clear();
            out.push_back({0, 0, std::move(move.actions), nullptr});
            return Expanded::Won;
        }
        const std::uint64_t h = position_hash(*child);
        if (!fresh(h)) continue;
        // nothing behind it can win (Game::dead); asked after the table, so a position met again
        // costs no second test (a dead position filed as seen is lost, as a searched one is)
        if (use_hooks && child->dead()) continue;
        const int gain = child->foundation_cards() - before;
        out.push_back({gain, move.priority, std::move(move.actions), std::move(child), h});
    }
    order(out);
    return Expanded::Searched;
}

// The probe (solver.hpp): limited discrepancy search. Round k follows the best-ordered child
// everywhere except on at most k moves of a line; a position met again is searched again only
// with more discrepancies to spare than before. Round 0 is one line of the ordering's first
// choices. True (with the line appended to result.actions) when a win is found.
bool probe(const Game& start, Budget& budget, SolveResult& result) {
    std::vector<Game::SolverMove> moves;
    std::vector<std::uint8_t> mask;
    for (int k = 0;; ++k) {
        // position -> the most discrepancies to spare it was searched with
        std::unordered_map<std::uint64_t, int> left;
        left.reserve(1024);
        bool pruned = false;
        std::vector<Frame> line;
        left[position_hash(start)] = k;
        line.push_back({});
        int spare = k;  // of the position being expanded or entered
        auto fresh = [&](std::uint64_t h) {
            auto it = left.find(h);
            return it == left.end() || it->second < spare;
        };
        Expanded e = expand(start, budget, moves, mask, fresh, line.back().children);
        while (e == Expanded::Searched && !line.empty()) {
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
            spare = k - d;
            if (!fresh(next.hash)) continue;  // searched with as much to spare
            left[next.hash] = spare;
            line.push_back({std::move(next.line), {}, d});
            note_progress(line, *next.game, result);
            e = expand(*next.game, budget, moves, mask, fresh, line.back().children);
        }
        if (e == Expanded::Won) {
            append_winning_line(line, result.actions);
            return true;
        }
        if (e == Expanded::OutOfBudget || !pruned) return false;  // spent, or round k saw every line
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
    result.best_cards = start.foundation_cards();
    if (start.won()) return finish(Verdict::Won);
    if (use_hooks && start.dead()) return finish(Verdict::Lost);

    if (use_hooks && probe_nodes > 0) {
        Budget first{std::min(probe_nodes, max_nodes), max_seconds, t0};
        const bool won = probe(start, first, result);
        result.nodes = std::min(first.nodes, first.max_nodes);
        if (won) return finish(Verdict::Won);
    }

    Budget budget{max_nodes, max_seconds, t0, result.nodes};
    HashSet seen;
    seen.insert(position_hash(start));
    std::vector<Game::SolverMove> moves;
    std::vector<std::uint8_t> mask;
    auto fresh = [&](std::uint64_t h) { return seen.insert(h); };

    std::vector<Frame> line;
    line.push_back({});
    Expanded e = expand(start, budget, moves, mask, fresh, line.back().children);
    while (e == Expanded::Searched && !line.empty()) {
        auto& children = line.back().children;
        if (children.empty()) {
            line.pop_back();
            continue;
        }
        Child next = std::move(children.back());
        children.pop_back();
        line.push_back({std::move(next.line), {}});
        note_progress(line, *next.game, result);
        e = expand(*next.game, budget, moves, mask, fresh, line.back().children);
    }
    result.nodes = budget.nodes;
    result.positions = seen.size();
    if (e == Expanded::Won) {
        append_winning_line(line, result.actions);
        return finish(Verdict::Won);
    }
    return finish(e == Expanded::OutOfBudget ? Verdict::Unknown : Verdict::Lost);
}

}  // namespace pg

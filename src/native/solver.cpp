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

// A set of 64-bit position hashes: open addressing, linear probing, 0 marks an empty slot. With
// values on (track()), each hash also carries a 32-bit value (the search's low link, below).
class HashSet {
public:
    HashSet() : slots_(1u << 16, 0) {}

    void track() { vals_.assign(slots_.size(), 0); }
    bool tracking() const { return !vals_.empty(); }

    // Insert h (with value v when tracking); false when it was there already.
    bool insert(std::uint64_t h, std::uint32_t v = 0) {
        if (h == 0) h = 1;
        if (2 * (size_ + 1) > slots_.size()) grow();
        return place(slots_, vals_, h, v);
    }
    // The value stored with h (h must be there; tracking only).
    std::uint32_t& value(std::uint64_t h) {
        if (h == 0) h = 1;
        const std::size_t mask = slots_.size() - 1;
        std::size_t i = static_cast<std::size_t>(h * 0x9E3779B97F4A7C15ULL) & mask;
        while (slots_[i] != h) i = (i + 1) & mask;
        return vals_[i];
    }
    std::uint64_t size() const { return size_; }
    const std::vector<std::uint64_t>& slots() const { return slots_; }
    const std::vector<std::uint32_t>& values() const { return vals_; }

private:
    bool place(std::vector<std::uint64_t>& slots, std::vector<std::uint32_t>& vals, std::uint64_t h, std::uint32_t v) {
        const std::size_t mask = slots.size() - 1;
        for (std::size_t i = static_cast<std::size_t>(h * 0x9E3779B97F4A7C15ULL) & mask;; i = (i + 1) & mask) {
            if (slots[i] == h) return false;
            if (slots[i] == 0) {
                slots[i] = h;
                if (!vals.empty()) vals[i] = v;
                ++size_;
                return true;
            }
        }
    }
    void grow() {
        std::vector<std::uint64_t> bigger(slots_.size() * 2, 0);
        std::vector<std::uint32_t> vbigger(vals_.empty() ? 0 : bigger.size(), 0);
        size_ = 0;
        for (std::size_t i = 0; i < slots_.size(); ++i)
            if (slots_[i]) place(bigger, vbigger, slots_[i], vals_.empty() ? 0 : vals_[i]);
        slots_.swap(bigger);
        vals_.swap(vbigger);
    }
    std::vector<std::uint64_t> slots_;
    std::vector<std::uint32_t> vals_;
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
    // the depth-first search's, where it keeps a LostTable (solve()): this position's hash, its
    // number, the smallest number of an open position its proof leans on so far (its low link),
    // and how many searched positions awaited their proof when it was entered
    std::uint64_t hash = 0;
    std::uint32_t index = 0, low = 0;
    std::size_t mark = 0;
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

// What a search asks of the variant: its hooks, and with them its proven dominances
// (SolveOptions::dominances); `sure`: stop at a sure win (off in the search that plays one out).
struct Rules {
    bool dominances = false;
    bool sure = false;
};

bool play_out(const Game& g, Budget& budget, std::vector<int>& line);

// The children of g that `fresh(hash)` admits, ordered (best last); on Won, `out` holds only the
// winning move (with a sure win's play-out after it). With the hooks: the variant's safe move
// alone or its solver_moves() (solver_moves_pruned() with the dominances); without: every legal
// action alone.
template <class Fresh, class Dead>
Expanded expand(const Game& g, Budget& budget, const Rules& rules, std::vector<Game::SolverMove>& moves,
                std::vector<std::uint8_t>& mask, Fresh&& fresh, Dead&& dead, std::vector<Child>& out) {
    const int before = g.foundation_cards();
    const int safe = use_hooks ? g.safe_move() : -1;
    moves.clear();
    if (safe >= 0) {
        moves.push_back({{safe}, 0});
    } else if (use_hooks && rules.dominances) {
        g.solver_moves_pruned(moves);
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
        // a sure win (Game::sure_win, proven where overridden) is played out by a small search
        // of its own; should that fail, the position is searched as any other
        const bool won = child->won() || (rules.sure && child->sure_win() && play_out(*child, budget, move.actions));
        if (won) {
            out.clear();
            out.push_back({0, 0, std::move(move.actions), nullptr});
            return Expanded::Won;
        }
        const std::uint64_t h = position_hash(*child, rules.dominances);
        if (!fresh(h)) continue;
        // nothing behind it can win (Game::dead); asked after the table, so a position met again
        // costs no second test (a dead position filed as seen is lost, as a searched one is)
        if (use_hooks && child->dead()) {
            dead(h);
            continue;
        }
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
bool probe(const Game& start, Budget& budget, const Rules& rules, const LostTable* lost, SolveResult& result) {
    std::vector<Game::SolverMove> moves;
    std::vector<std::uint8_t> mask;
    for (int k = 0;; ++k) {
        // position -> the most discrepancies to spare it was searched with
        std::unordered_map<std::uint64_t, int> left;
        left.reserve(1024);
        bool pruned = false;
        std::vector<Frame> line;
        left[position_hash(start, rules.dominances)] = k;
        line.push_back({});
        int spare = k;  // of the position being expanded or entered
        auto fresh = [&](std::uint64_t h) {
            auto it = left.find(h);
            return (it == left.end() || it->second < spare) && !(lost && lost->contains(h));
        };
        auto dead = [](std::uint64_t) {};
        Expanded e = expand(start, budget, rules, moves, mask, fresh, dead, line.back().children);
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
            e = expand(*next.game, budget, rules, moves, mask, fresh, dead, line.back().children);
        }
        if (e == Expanded::Won) {
            append_winning_line(line, result.actions);
            return true;
        }
        if (e == Expanded::OutOfBudget || !pruned) return false;  // spent, or round k saw every line
    }
}

}  // namespace

bool LostTable::contains(std::uint64_t h) const {
    if (h == 0) h = 1;
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = static_cast<std::size_t>(h * 0x9E3779B97F4A7C15ULL) & mask;; i = (i + 1) & mask) {
        if (slots_[i] == h) return true;
        if (slots_[i] == 0) return false;
    }
}

void LostTable::insert(std::uint64_t h) {
    if (h == 0) h = 1;
    if (2 * (size_ + 1) > slots_.size()) {
        std::vector<std::uint64_t> old(slots_.size() * 2, 0);
        old.swap(slots_);
        size_ = 0;
        for (std::uint64_t x : old)
            if (x) insert(x);
    }
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = static_cast<std::size_t>(h * 0x9E3779B97F4A7C15ULL) & mask;; i = (i + 1) & mask) {
        if (slots_[i] == h) return;
        if (slots_[i] == 0) {
            slots_[i] = h;
            ++size_;
            return;
        }
    }
}

namespace {

// The low links (LostTable), as in Tarjan's algorithm for strongly connected components: each
// position entered gets the next number; its value in the search's own table is that number while
// it is on the line, then the smallest number of a still-open position its proof leans on, and
// LOST once it is proven lost. A child filed but not yet entered carries its parent's number.
// Numbers stop at LOST - 1: past it the search proves nothing more lost (never too much).
constexpr std::uint32_t LOST = 0xFFFFFFFFu, LAST = LOST - 1;

// The exhaustive depth-first search from `start` (result: its verdict, line and positions; nodes
// are counted in `budget`). With `lost`: positions in it are skipped, and every position this
// search proves lost is added to it (the low links above).
void dfs(const Game& start, Budget& budget, const Rules& rules, LostTable* lost, SolveResult& result) {
    HashSet seen;
    const bool track = lost != nullptr;
    if (track) {
        seen.track();
        for (std::uint64_t h : lost->slots())
            if (h) seen.insert(h, LOST);
    }
    std::vector<Game::SolverMove> moves;
    std::vector<std::uint8_t> mask;
    std::vector<Frame> line;
    std::vector<std::uint64_t> waiting;  // searched positions whose proofs lean on an open one
    std::uint32_t entered = 0;           // positions numbered so far
    // A child met by the position on top of the line: new (filed with the top's number: open
    // until the top is searched), or met before: then the top's proof leans on it unless it is
    // proven lost.
    auto fresh = [&](std::uint64_t h) {
        if (seen.insert(h, line.back().index)) return true;
        if (track) {
            const std::uint32_t v = seen.value(h);
            if (v != LOST) line.back().low = std::min(line.back().low, v);
        }
        return false;
    };
    auto dead = [&](std::uint64_t h) {
        if (track) seen.value(h) = LOST;
    };
    auto enter = [&](std::vector<int> move, std::uint64_t h) {
        Frame f{std::move(move), {}};
        f.hash = h;
        f.index = f.low = entered;
        if (entered < LAST) ++entered;
        f.mark = waiting.size();
        if (track) seen.value(h) = f.index;
        line.push_back(std::move(f));
    };
    // The top position is searched: proven lost, with every position waiting since it was
    // entered, when its proof leans on no open position numbered below it; else it waits, and
    // its parent's proof leans on what its own leans on.
    auto leave = [&]() {
        Frame& f = line.back();
        if (track) {
            if (f.low >= f.index && entered < LAST) {
                seen.value(f.hash) = LOST;
                for (std::size_t i = f.mark; i < waiting.size(); ++i) seen.value(waiting[i]) = LOST;
                waiting.resize(f.mark);
            } else {
                seen.value(f.hash) = f.low;
                waiting.push_back(f.hash);
                if (line.size() > 1) line[line.size() - 2].low = std::min(line[line.size() - 2].low, f.low);
            }
        }
        line.pop_back();
    };

    const std::uint64_t root = position_hash(start, rules.dominances);
    seen.insert(root, 0);
    line.reserve(64);
    enter({}, root);
    Expanded e = expand(start, budget, rules, moves, mask, fresh, dead, line.back().children);
    while (e == Expanded::Searched && !line.empty()) {
        auto& children = line.back().children;
        if (children.empty()) {
            leave();
            continue;
        }
        Child next = std::move(children.back());
        children.pop_back();
        enter(std::move(next.line), next.hash);
        note_progress(line, *next.game, result);
        e = expand(*next.game, budget, rules, moves, mask, fresh, dead, line.back().children);
    }
    result.positions = seen.size();
    if (track) {
        const auto& slots = seen.slots();
        const auto& values = seen.values();
        for (std::size_t i = 0; i < slots.size(); ++i)
            if (slots[i] && values[i] == LOST) lost->insert(slots[i]);
    }
    if (e == Expanded::Won) {
        append_winning_line(line, result.actions);
        result.verdict = Verdict::Won;
    } else {
        result.verdict = e == Expanded::OutOfBudget ? Verdict::Unknown : Verdict::Lost;
    }
}

// A sure win's play-out (expand()): the same search without the stop at sure wins, on at most
// 100,000 nodes of its own (counted in `budget`), its line appended to `line` when it wins.
bool play_out(const Game& g, Budget& budget, std::vector<int>& line) {
    Budget own{100000, 0.0, budget.t0};
    SolveResult r;
    dfs(g, own, Rules{true, false}, nullptr, r);
    budget.nodes += std::min(own.nodes, own.max_nodes);
    if (r.verdict != Verdict::Won) return false;
    line.insert(line.end(), r.actions.begin(), r.actions.end());
    return true;
}

}  // namespace

SolveResult solve(const Game& start, std::uint64_t max_nodes, double max_seconds, const SolveOptions& options) {
    using Clock = std::chrono::steady_clock;
    const auto t0 = Clock::now();
    SolveResult result;
    auto finish = [&](Verdict v) {
        result.verdict = v;
        result.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
        return result;
    };
    const Rules rules{use_hooks && options.dominances, use_hooks && options.dominances};
    result.best_cards = start.foundation_cards();
    if (start.won()) return finish(Verdict::Won);
    if (use_hooks && start.dead()) return finish(Verdict::Lost);
    if (rules.sure && start.sure_win()) {
        Budget own{max_nodes, max_seconds, t0};
        const bool won = play_out(start, own, result.actions);
        result.nodes = own.nodes;
        if (won) return finish(Verdict::Won);
        result.actions.clear();
    }
    if (options.table && options.table->contains(position_hash(start, rules.dominances))) return finish(Verdict::Lost);

    if (use_hooks && options.probe_nodes > 0) {
        Budget first{std::min(options.probe_nodes, max_nodes), max_seconds, t0, result.nodes};
        const bool won = probe(start, first, rules, options.table, result);
        result.nodes = std::min(first.nodes, first.max_nodes);
        if (won) return finish(Verdict::Won);
    }

    Budget budget{max_nodes, max_seconds, t0, result.nodes};
    dfs(start, budget, rules, options.table, result);
    result.nodes = budget.nodes;
    return finish(result.verdict);
}

}  // namespace pg

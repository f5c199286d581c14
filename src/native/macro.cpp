// The macro planner of macro.hpp.
#include "macro.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstring>
#include <deque>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>

#include "beam.hpp"
#include "rollout.hpp"
#include "solver.hpp"

namespace pg {
namespace {

using Clock = std::chrono::steady_clock;

// A set of 64-bit position hashes for many small searches: cleared in O(1) by a generation stamp.
class StampSet {
public:
    explicit StampSet(std::uint64_t capacity) {
        std::size_t n = 1024;
        while (n < 2 * capacity + 16) n *= 2;
        keys_.assign(n, 0);
        stamps_.assign(n, 0);
    }
    void clear() {
        if (++gen_ == 0) {
            std::fill(stamps_.begin(), stamps_.end(), 0);
            gen_ = 1;
        }
        size_ = 0;
    }
    // Insert h; false when it was there already (or the set is full: then treated as seen, which
    // only prunes, never claims a win).
    bool insert(std::uint64_t h) {
        if (2 * (size_ + 1) > keys_.size()) return false;
        const std::size_t mask = keys_.size() - 1;
        for (std::size_t i = static_cast<std::size_t>(h * 0x9E3779B97F4A7C15ULL) & mask;; i = (i + 1) & mask) {
            if (stamps_[i] != gen_) {
                stamps_[i] = gen_;
                keys_[i] = h;
                ++size_;
                return true;
            }
            if (keys_[i] == h) return false;
        }
    }

private:
    std::vector<std::uint64_t> keys_;
    std::vector<std::uint32_t> stamps_;
    std::uint32_t gen_ = 1;
    std::size_t size_ = 0;
};

// The candidates' moves from g: the variant's safe move alone where it has one, else all its
// solver moves (the capped searches have their own, pruned: CappedSolver::lazy_moves).
void moves_of(const Game& g, std::vector<Game::SolverMove>& out) {
    out.clear();
    const int safe = g.safe_move();
    if (safe >= 0) {
        out.push_back({{safe}, 100});
    } else {
        g.solver_moves(out);
    }
}

// A capped depth-first search of one sampled deal (every card known), as the solver's
// (solver.hpp: the variant's safe move alone, else its planner moves, the transposition table,
// more foundation cards first, then the variant's priority), stopped after `cap` nodes: a node is
// a position entered (a move is played only when it is tried). Dead positions (Game::dead) are
// not cut inside the search: at these budgets the test cost more than the nodes it saved
// (Klondike draw 3: about a quarter of the time, measured with perf). A sure win
// (Game::sure_win) counts as won. Returns 1 for a win, else the share of the winning cards on the
// best position entered, times `cards`.
class CappedSolver {
public:
    explicit CappedSolver(std::uint64_t cap, bool dominances = false, double dig = 0.0)
        : cap_(cap), dom_(dominances), dig_(dig), seen_(cap) {}

    double value(const Game& start, double cards, std::uint64_t& nodes, bool& won) {
        won = false;
        down0_ = dig_ > 0 ? start.face_down_cards() : 0;
        best_ = progress(start);
        if (start.won() || start.sure_win()) return won = true, 1.0;
        if (!start.dead()) {
            seen_.clear();
            seen_.insert(hash(start));
            spent_ = 0;
            won = search_lazy(start);
            nodes += spent_;
        }
        if (won) return 1.0;
        return cards * best_ / (start.win_cards() + dig_ * down0_);
    }

private:
    // The search keeps, per depth, the position's planner moves and the order to try them in: a
    // move is played (and counted) only when it is tried, so the budget goes to positions entered
    // rather than to siblings generated and never searched.
    struct Lazy {
        Game* game;                 // the depth's game, owned by pool_
        Game::MoveList moves;       // the planner's moves here
        std::vector<int> order;     // indices into moves, worst first: tried from the back
    };
    void lazy_moves(const Game& g, Lazy& f) {
        f.moves.clear();
        f.order.clear();
        const int safe = g.safe_move();
        if (safe >= 0) {
            f.moves.add(&safe, 1, 0);
            f.order.push_back(0);
            return;
        }
        const bool pruned = dom_ && g.prunes_solver_moves();
        if (pruned) {  // the solver's moves less those its proven dominances make unnecessary
            g.solver_moves_pruned_flat(f.moves);
        } else {
            g.planner_moves_flat(f.moves);
        }
        const int n = f.moves.size();
        // Where the priorities do not rank card-winning moves first (Game::planner_moves_ranked),
        // each move is peeked at on a scratch copy: more foundation cards first, then priority.
        const bool ranked = g.planner_moves_ranked();
        if (!ranked) {
            rank_.assign(static_cast<std::size_t>(n), 0);
            if (!peek_) peek_ = g.clone();
            const int before = g.foundation_cards();
            for (int i = 0; i < n; ++i) {
                peek_->assign(g);
                for (int k = f.moves.start[i]; k < f.moves.start[i + 1]; ++k)
                    peek_->apply(f.moves.acts[static_cast<std::size_t>(k)]);
                rank_[static_cast<std::size_t>(i)] = peek_->foundation_cards() - before;
            }
        }
        auto less = [&f, ranked, this](int x, int y) {
            const auto ux = static_cast<std::size_t>(x), uy = static_cast<std::size_t>(y);
            if (!ranked && rank_[ux] != rank_[uy]) return rank_[ux] < rank_[uy];
            return f.moves.prio[ux] < f.moves.prio[uy];
        };
        // tried from the back: the best first, among equals the first listed (a stable insertion
        // sort of the moves listed last to first: the lists are short, and it allocates nothing)
        for (int i = n - 1; i >= 0; --i) {
            f.order.push_back(i);
            for (std::size_t k = f.order.size() - 1; k > 0 && less(i, f.order[k - 1]); --k)
                std::swap(f.order[k], f.order[k - 1]);
        }
    }
    // The game of depth d (a copy kept from search to search: no allocation per position).
    Game* at_depth(std::size_t d, const Game& like) {
        while (pool_.size() <= d) pool_.push_back(like.clone());
        return pool_[d].get();
    }
    bool search_lazy(const Game& start) {
        std::vector<Lazy>& stack = lazy_stack_;
        std::size_t depth = 0;
        auto push = [&](Game* g) {
            if (stack.size() <= depth) stack.emplace_back();
            stack[depth].game = g;
            lazy_moves(*g, stack[depth]);
            ++depth;
        };
        Game* root = at_depth(0, start);
        root->assign(start);
        push(root);
        while (depth > 0) {
            Lazy& top = stack[depth - 1];
            if (top.order.empty()) {
                --depth;
                continue;
            }
            if (++spent_ > cap_) return false;
            Game* child = at_depth(depth, start);
            child->assign(*top.game);
            const auto m = static_cast<std::size_t>(top.order.back());
            top.order.pop_back();
            for (int i = top.moves.start[m]; i < top.moves.start[m + 1]; ++i)
                child->apply(top.moves.acts[static_cast<std::size_t>(i)]);
            if (child->won() || child->sure_win()) return true;
            if (!seen_.insert(hash(*child))) continue;
            best_ = std::max(best_, progress(*child));
            push(child);
        }
        return false;
    }

    std::uint64_t hash(const Game& g) const { return dom_ ? g.solver_hash() : g.canonical_hash(); }
    // foundation cards, and with dig > 0 the face-down cards turned up since the search's start
    double progress(const Game& g) const {
        const double cards = g.foundation_cards();
        return dig_ > 0 ? cards + dig_ * (down0_ - g.face_down_cards()) : cards;
    }

    std::uint64_t cap_;
    bool dom_;
    double dig_;
    int down0_ = 0;  // the search's start's face-down cards
    StampSet seen_;
    std::uint64_t spent_ = 0;
    double best_ = 0;
    std::vector<std::unique_ptr<Game>> pool_;  // search_lazy's game per depth
    std::vector<Lazy> lazy_stack_;
    std::unique_ptr<Game> peek_;  // lazy_moves' scratch game
    std::vector<int> rank_;       // lazy_moves' foundation gains
};

// A game of proto's variant dealt from pack with history played (each action checked: a history
// that is not legal on a consistent deal is a caller's error).
std::unique_ptr<Game> dealt(const Game& proto, const std::vector<int>& pack, const std::vector<int>& history) {
    auto g = proto.clone();
    g->deal(pack);
    for (int a : history) {
        if (a < 0 || a >= g->n_actions() || !g->is_legal(a))
            throw std::invalid_argument("the history is not legal on the frame's deal (action " + std::to_string(a) + ")");
        g->apply(a);
    }
    return g;
}

// Play `a` on each game if it is legal on all of them; false (games unchanged) otherwise.
bool play_all(std::array<std::unique_ptr<Game>, 3>& gs, int a) {
    for (auto& g : gs)
        if (!g->is_legal(a)) return false;
    for (auto& g : gs) g->apply(a);
    return true;
}

class Observer {
public:
    explicit Observer(int size) : a_(static_cast<std::size_t>(size)), b_(static_cast<std::size_t>(size)) {}
    // True when the three games (consistent so far) look different to the player: a card shown
    // that the player had not seen.
    bool differ(const std::array<std::unique_ptr<Game>, 3>& gs) {
        see(*gs[0], a_);
        for (int k = 1; k < 3; ++k) {
            see(*gs[static_cast<std::size_t>(k)], b_);
            if (std::memcmp(a_.data(), b_.data(), a_.size() * sizeof(float)) != 0) return true;
        }
        return false;
    }

private:
    static void see(const Game& g, std::vector<float>& buf) {
        std::fill(buf.begin(), buf.end(), 0.0f);
        g.observe(buf.data());
    }
    std::vector<float> a_, b_;
};

// Whether one legal action of g leads back to a position whose canonical hash is `back`.
bool reversible(const Game& g, std::uint64_t back, std::vector<std::uint8_t>& mask) {
    mask.resize(static_cast<std::size_t>(g.n_actions()));
    g.legal_mask(mask.data());
    for (int a = 0; a < g.n_actions(); ++a) {
        if (!mask[static_cast<std::size_t>(a)]) continue;
        auto copy = g.clone();
        copy->apply(a);
        if (copy->canonical_hash() == back) return true;
    }
    return false;
}

struct RegionNode {
    std::array<std::unique_ptr<Game>, 3> games;
    std::vector<int> path;
};

struct Found {
    MacroCandidate candidate;
    int gain;
    int priority;
    std::unique_ptr<Game> game;  // on the first of the three deals: for nothing-hidden solves
};

// Step 1 of macro.hpp: the candidates from the three deals' common position.
// With `one_per_event`, of the candidates with the same last action (their event) only the one
// with the shortest line is kept: the others only add quiet moves before the same event (each of
// which the next decision's region offers again).
std::vector<Found> candidates(std::array<std::unique_ptr<Game>, 3> root, int region, int& explored,
                              bool one_per_event) {
    std::vector<Found> out;
    StampSet region_seen(static_cast<std::uint64_t>(region) * 8 + 64), found_seen(4096);
    Observer observer(root[0]->obs_size());
    // one_per_event: the index in `out` of the candidate kept for each event (-1: none yet)
    std::vector<int> event_at(static_cast<std::size_t>(root[0]->n_actions()), -1);
    std::deque<RegionNode> queue;  // a deque: growing it keeps references to its nodes valid
    region_seen.insert(root[0]->canonical_hash());
    queue.push_back({std::move(root), {}});
    std::vector<Game::SolverMove> moves;
    std::vector<std::uint8_t> mask;
    // Adds a candidate, or with one_per_event keeps the shorter of it and the one found before.
    auto add = [&](Found&& f) {
        if (!one_per_event) return out.push_back(std::move(f));
        int& at = event_at[static_cast<std::size_t>(f.candidate.line.back())];
        if (at < 0) {
            at = static_cast<int>(out.size());
            out.push_back(std::move(f));
        } else if (f.candidate.line.size() < out[static_cast<std::size_t>(at)].candidate.line.size()) {
            out[static_cast<std::size_t>(at)] = std::move(f);
        }
    };
    for (std::size_t q = 0; q < queue.size(); ++q) {
        const auto& node = queue[q];
        const Game& g0 = *node.games[0];
        const int before = g0.foundation_cards();
        moves_of(g0, moves);  // all of them: the capped searches prune, the choices do not
        // besides, each single action that shows a card (a turn of the stock onto unseen cards,
        // whether or not a macro move starts with it: whether one does depends on the guess)
        for (int a = 0; a < g0.n_actions(); ++a) {
            if (!g0.is_legal(a)) continue;
            std::array<std::unique_ptr<Game>, 3> gs{node.games[0]->clone(), node.games[1]->clone(),
                                                     node.games[2]->clone()};
            if (!play_all(gs, a) || !observer.differ(gs)) continue;
            if (!found_seen.insert(gs[0]->canonical_hash())) continue;
            std::vector<int> line = node.path;
            line.push_back(a);
            add({{std::move(line)}, gs[0]->foundation_cards() - before, g0.move_priority(a), std::move(gs[0])});
        }
        for (const auto& move : moves) {
            std::array<std::unique_ptr<Game>, 3> gs{node.games[0]->clone(), node.games[1]->clone(),
                                                     node.games[2]->clone()};
            std::vector<int> line = node.path;
            bool event = false, legal = true;
            for (int a : move.actions) {
                if (!play_all(gs, a)) {
                    legal = false;
                    break;
                }
                line.push_back(a);
                if (observer.differ(gs)) {  // a card shown: the move ends here
                    event = true;
                    break;
                }
            }
            if (!legal || line.size() == node.path.size()) continue;
            const int gain = gs[0]->foundation_cards() - before;
            // a card put up ends a candidate where no move brings it back (every variant but
            // Klondike with worrying_back, where putting a card up is as quiet as any pile move)
            event = event || !reversible(*gs[0], g0.canonical_hash(), mask);
            const std::uint64_t h = gs[0]->canonical_hash();
            if (event) {
                if (!found_seen.insert(h)) continue;
                add({{std::move(line)}, gain, move.priority, std::move(gs[0])});
            } else if (static_cast<int>(queue.size()) < region && region_seen.insert(h)) {
                queue.push_back({std::move(gs), std::move(line)});
            }
        }
    }
    explored = static_cast<int>(queue.size());
    // the solver's ordering: more cards won, then priority, then the shorter line
    std::stable_sort(out.begin(), out.end(), [](const Found& x, const Found& y) {
        if (x.gain != y.gain) return x.gain > y.gain;
        if (x.priority != y.priority) return x.priority > y.priority;
        return x.candidate.line.size() < y.candidate.line.size();
    });
    return out;
}

// Step 2 by racing (macro.hpp): every candidate left judged on the same deals, round by round;
// judge(i, k) plays candidate i on deal k and returns its value. The index of the one chosen.
template <class Judge, class Spent>
int race(std::vector<MacroCandidate>& cs, const MacroSettings& s, Judge&& judge, Spent&& out_of_budget) {
    const std::size_t m = cs.size();
    std::vector<std::vector<double>> v(m);  // each candidate's value on deal 0, 1, ...
    std::vector<std::size_t> left(m);
    for (std::size_t i = 0; i < m; ++i) left[i] = i;
    for (std::size_t n = 0;;) {
        for (std::size_t i : left)
            for (std::size_t k = n; k < n + static_cast<std::size_t>(s.batch); ++k) v[i].push_back(judge(i, k));
        n += static_cast<std::size_t>(s.batch);
        std::size_t lead = left[0];  // the best summed value; among equals the ordering's first
        for (std::size_t i : left)
            if (cs[i].value > cs[lead].value) lead = i;
        bool silent = true;
        for (std::size_t i : left) silent = silent && cs[i].wins == 0;
        const bool two = n >= 2 * static_cast<std::size_t>(s.batch);
        const bool all_won = s.all_won && cs[lead].wins == static_cast<int>(n);
        if (n >= static_cast<std::size_t>(s.samples) || (two && (silent || all_won)) ||
            out_of_budget())
            return static_cast<int>(lead);
        if (!two) continue;
        std::vector<std::size_t> still;
        for (std::size_t i : left) {
            if (i == lead) {
                still.push_back(i);
                continue;
            }
            double sum = 0.0, sq = 0.0;
            for (std::size_t k = 0; k < n; ++k) {
                const double d = v[lead][k] - v[i][k];
                sum += d, sq += d * d;
            }
            const double mean = sum / static_cast<double>(n);
            const double var = std::max(0.0, sq / static_cast<double>(n) - mean * mean) / static_cast<double>(n - 1);
            const double se = std::max(std::sqrt(var), 1.0 / static_cast<double>(n));
            const bool behind = mean > 0 && mean > s.race * std::sqrt(var);
            const bool tied = std::abs(mean) + s.race * se < s.tie;
            if (!behind && !tied) still.push_back(i);
        }
        left.swap(still);
        if (left.size() == 1) return static_cast<int>(left[0]);
    }
}

}  // namespace

void ValueNet::add(int in, int out, std::vector<float> weights, std::vector<float> biases) {
    if (in < 1 || out < 1 || weights.size() != static_cast<std::size_t>(in) * static_cast<std::size_t>(out) ||
        biases.size() != static_cast<std::size_t>(out))
        throw std::invalid_argument("a value net layer needs in x out weights and out biases");
    if (!out_.empty() && out_.back() != in)
        throw std::invalid_argument("a value net layer must read as many values as the one before it writes");
    in_.push_back(in), out_.push_back(out), w_.push_back(std::move(weights)), b_.push_back(std::move(biases));
}

double ValueNet::operator()(const Game& g) const {
    if (in_.empty() || in_.front() != g.obs_size())
        throw std::invalid_argument("the value net's first layer must read the game's observation");
    std::vector<float> x(static_cast<std::size_t>(g.obs_size()), 0.0f), y;
    g.observe(x.data());
    for (std::size_t l = 0; l < in_.size(); ++l) {
        const auto n = static_cast<std::size_t>(in_[l]), m = static_cast<std::size_t>(out_[l]);
        y.assign(b_[l].begin(), b_[l].end());
        const float* w = w_[l].data();
        for (std::size_t i = 0; i < m; ++i) {
            float acc = 0.0f;
            const float* row = w + i * n;
            for (std::size_t j = 0; j < n; ++j) acc += row[j] * x[j];
            y[i] += acc;
            if (l + 1 < in_.size() && y[i] < 0.0f) y[i] = 0.0f;
        }
        x.swap(y);
    }
    return 1.0 / (1.0 + std::exp(-static_cast<double>(x[0])));
}

MacroResult macro_decide(const Game& proto, const std::vector<int>& frame, const std::vector<int>& unseen,
                         const std::vector<int>& history, const MacroSettings& s) {
    if (s.samples < 1 || s.batch < 1 || s.solve_nodes < 1 || s.region < 1)
        throw std::invalid_argument("macro: samples, batch, solve_nodes and region must be >= 1");
    for (int p : unseen)
        if (p < 0 || p >= static_cast<int>(frame.size()))
            throw std::invalid_argument("macro: an unseen position is outside the frame");
    const auto t0 = Clock::now();
    MacroResult result;
    // The hidden cards, sorted (with `fixed`, as the frame holds them, so that the first rotation
    // is the frame itself), and three deals that differ at every unseen position (rotations).
    std::vector<int> hidden;
    for (int p : unseen) hidden.push_back(frame[static_cast<std::size_t>(p)]);
    if (s.fixed.empty()) std::sort(hidden.begin(), hidden.end());
    const std::size_t n = hidden.size();
    // The positions the sampled deals deal again, and their cards, sorted: unseen less fixed.
    std::vector<char> is_fixed(frame.size(), 0);
    for (int p : s.fixed) {
        if (std::find(unseen.begin(), unseen.end(), p) == unseen.end())
            throw std::invalid_argument("macro: a fixed position is not among the unseen ones");
        is_fixed[static_cast<std::size_t>(p)] = 1;
    }
    std::vector<int> sampled_at, sampled;
    for (int p : unseen)
        if (!is_fixed[static_cast<std::size_t>(p)])
            sampled_at.push_back(p), sampled.push_back(frame[static_cast<std::size_t>(p)]);
    std::sort(sampled.begin(), sampled.end());
    auto rotated = [&](std::size_t r) {
        std::vector<int> pack = frame;
        for (std::size_t i = 0; i < n; ++i)
            pack[static_cast<std::size_t>(unseen[i])] = hidden[(i + r) % n];
        return pack;
    };
    const std::size_t r2 = n >= 4 ? n / 2 : (n == 3 ? 2 : 1);
    std::array<std::unique_ptr<Game>, 3> root{dealt(proto, rotated(0), history), dealt(proto, rotated(1), history),
                                              dealt(proto, rotated(r2), history)};
    const bool nothing_hidden = sampled.size() <= 1 || sampled.front() == sampled.back();
    std::unique_ptr<Game> real = nothing_hidden ? root[0]->clone() : nullptr;

    std::vector<Found> found = candidates(std::move(root), s.region, result.region_positions, s.one_per_event);
    if (!s.prior.empty() && !nothing_hidden) {  // macro.hpp: prior, keep
        auto weight = [&](const Found& f) {
            const auto a = static_cast<std::size_t>(f.candidate.line.front());
            return a < s.prior.size() ? s.prior[a] : 0.0;
        };
        std::stable_sort(found.begin(), found.end(), [&](const Found& x, const Found& y) { return weight(x) > weight(y); });
        if (s.keep > 0 && found.size() > static_cast<std::size_t>(s.keep)) found.resize(static_cast<std::size_t>(s.keep));
    }
    for (const auto& f : found) result.candidates.push_back(f.candidate);
    if (found.empty()) return result;

    if (nothing_hidden) {  // step 3
        const SolveResult solved = solve(*real, s.known_nodes, 0.0, SolveOptions{s.known_nodes / 2, s.dominances, s.table});
        result.nodes += solved.nodes;
        if (solved.verdict == Verdict::Won) {
            result.plan = solved.actions;
            return result;
        }
        if (found.size() == 1) return result.chosen = 0, result;
        CappedSolver solver(s.solve_nodes, s.dominances, s.dig);
        double best = -1.0;
        for (std::size_t i = 0; i < found.size(); ++i) {
            bool won = false;
            const Game& g = *found[i].game;
            // a position an earlier solve proved lost can only score its cards
            const bool lost = s.table && s.table->contains(position_hash(g, s.dominances));
            const double v = lost ? static_cast<double>(g.foundation_cards()) / g.win_cards()
                                  : solver.value(g, 1.0, result.nodes, won);
            auto& c = result.candidates[i];
            c.plays = 1, c.wins = won, c.value = v;
            if (v > best) best = v, result.chosen = static_cast<int>(i);
        }
        return result;
    }
    if (found.size() == 1) return result.chosen = 0, result;

    // Step 2: the bandit on common sampled deals.
    std::mt19937_64 rng(s.seed);
    std::vector<std::unique_ptr<Game>> deals;
    auto deal = [&](std::size_t k) -> const Game& {
        while (deals.size() <= k) {
            std::vector<int> pack = frame;
            std::vector<int> cards = sampled;
            for (std::size_t i = cards.size(); i > 1; --i) std::swap(cards[i - 1], cards[rng() % i]);
            for (std::size_t i = 0; i < cards.size(); ++i) pack[static_cast<std::size_t>(sampled_at[i])] = cards[i];
            deals.push_back(dealt(proto, pack, history));
        }
        return *deals[k];
    };
    std::uint64_t cap = s.solve_nodes, probe = s.probe_nodes;  // grown by `deepen`
    auto solver = std::make_unique<CappedSolver>(cap, s.dominances, s.dig);
    auto& cs = result.candidates;
    // Candidate i judged on sampled deal k: its line played there, then the capped search.
    auto judge = [&](std::size_t i, std::size_t k) {
        auto g = deal(k).clone();
        auto& c = cs[i];
        for (int a : c.line) {
            if (!g->is_legal(a)) throw std::logic_error("macro: a candidate's line is not legal on a consistent deal");
            g->apply(a);
        }
        bool won = false;
        double v = 0.0;
        if (s.beam > 0 || s.probe_nodes > 0) {
            // the layered beam search (macro.hpp: beam), or the solver with its probe (probe_nodes)
            const SolveResult r = s.beam > 0 ? beam_solve(*g, s.beam, cap, 0.0)
                                             : solve(*g, cap, 0.0, SolveOptions{probe, s.dominances, nullptr});
            result.nodes += r.nodes;
            won = r.verdict == Verdict::Won;
            v = won ? 1.0 : s.cards * r.best_cards / g->win_cards();
        } else {
            v = solver->value(*g, s.cards, result.nodes, won);
        }
        if (!won && s.value_net) v = s.cards * (*s.value_net)(*g);  // macro.hpp: value_net
        if (!won && s.rollout) {  // macro.hpp: rollout
            const int end = rollout(*g, 4 * g->win_cards() + 1000);
            won = end >= g->win_cards();
            v = won ? 1.0 : std::max(v, s.cards * end / g->win_cards());
        }
        c.value += v;
        c.wins += won;
        ++c.plays;
        return v;
    };
    auto out_of_budget = [&] {
        return (s.max_nodes > 0 && result.nodes >= s.max_nodes) ||
               (s.max_seconds > 0 && std::chrono::duration<double>(Clock::now() - t0).count() > s.max_seconds);
    };
    if (s.race > 0) {
        result.chosen = race(cs, s, judge, out_of_budget);
        result.deals = static_cast<int>(deals.size());
        return result;
    }
    long total = 0;
    for (int deepened = 0;;) {
        int pick = -1;
        double best = 0.0;
        const double log_n = std::log(static_cast<double>(total) + 1.0);
        for (std::size_t i = 0; i < cs.size(); ++i) {
            const auto& c = cs[i];
            const double score = c.plays == 0 ? 1e9 - static_cast<double>(i)
                                              : c.value / c.plays + s.exploration * std::sqrt(log_n / c.plays);
            if (pick < 0 || score > best) pick = static_cast<int>(i), best = score;
        }
        auto& c = cs[static_cast<std::size_t>(pick)];
        if (s.skip_decided && c.plays + s.batch >= s.samples) {  // macro.hpp: skip_decided
            bool none_won = true;
            for (const auto& x : cs) none_won = none_won && x.wins == 0;
            // the batch could only matter through a deal won or not: to `deepen` or `silent_first`
            if (!none_won || (!s.silent_first && deepened >= s.deepen)) {
                result.chosen = pick;
                break;
            }
        }
        for (int b = 0; b < s.batch; ++b, ++total) judge(static_cast<std::size_t>(pick), static_cast<std::size_t>(c.plays));
        bool none_won = true, silent = true;
        for (const auto& x : cs) none_won = none_won && x.wins == 0, silent = silent && x.wins == 0 && x.plays >= 2 * s.batch;
        // `deepen`: about to decide (or to fall silent) with not one deal won by any candidate,
        // the searches were too small to tell the candidates apart: again, four times as large
        if (none_won && (silent || c.plays >= s.samples) && deepened < s.deepen && !out_of_budget()) {
            ++deepened, cap *= 4, probe *= 4, total = 0;
            solver = std::make_unique<CappedSolver>(cap, s.dominances, s.dig);
            for (auto& x : cs) x.plays = 0, x.wins = 0, x.value = 0.0;
            continue;
        }
        // decided: judged on `samples` deals, or won on every one of at least two batches (a
        // move that wins every deal tried needs no more: the rest of the game will vote again)
        if (c.plays >= s.samples || (s.all_won && c.wins == c.plays && c.plays >= 2 * s.batch)) {
            result.chosen = none_won && s.silent_first ? 0 : pick;
            break;
        }
        // every candidate judged on two batches and not one deal won: more deals would tell
        // nothing the values do not (the foundation shares, or the ordering's first)
        if (silent || out_of_budget()) {
            int most = 0;
            for (std::size_t i = 1; i < cs.size(); ++i) {
                const auto &x = cs[i], &y = cs[static_cast<std::size_t>(most)];
                if (x.plays > y.plays || (x.plays == y.plays && x.value > y.value)) most = static_cast<int>(i);
            }
            result.chosen = none_won && s.silent_first ? 0 : most;
            break;
        }
    }
    result.deals = static_cast<int>(deals.size());
    return result;
}

}  // namespace pg

// The Congress: the native twin of patience_gym/games/congress.py (docs/rules.md section 7).
//
// Same action table and observation as the Python module (their ids, offsets and sizes come from
// it, through generated/congress_spec.hpp), and the same silent choices, which its docstring
// documents; the comments here only say where C++ differs in form. Texts are Python's alone.
#include <algorithm>
#include <cstring>
#include <string>

#include "core.hpp"
#include "congress_spec.hpp"

namespace pg {
namespace {

constexpr const auto& spec = generated::congress;

constexpr int N_COLS = 8, N_HELPS = 8, N_HELPS_EARLY = 4, N_FOUND = 8;
constexpr int N_PACK = 104 - N_FOUND - N_HELPS_EARLY - N_COLS;  // 84
constexpr int MAX_ROWS = 12;  // 1 + ceil(84 / 8): at most 12 rows are ever dealt
constexpr int MAX_HELP = 12;  // a K down to a 2 (the aces are on the foundations from the start)
// Action ids: the first of each kind in congress.TABLE (move_of reads them in this order).
constexpr int RIVER_F = spec.first("RIVER_TO_FOUNDATION"), HELP_F = spec.first("HELP_TO_FOUNDATION");
constexpr int RIVER_H0 = spec.first("RIVER_TO_HELP");
constexpr int REFILL = spec.first("REFILL"), DEAL = spec.first("DEAL"), HELP_H0 = spec.first("HELP_TO_HELP");
constexpr int N_ACTIONS = spec.n_actions();
static_assert(RIVER_F < HELP_F && HELP_F < RIVER_H0 && RIVER_H0 < REFILL && REFILL < DEAL && DEAL < HELP_H0 &&
              spec.count("RIVER_TO_HELP") == N_COLS * N_HELPS &&
              spec.count("HELP_TO_HELP") == N_HELPS * (N_HELPS - 1));
// Observation places per card (congress.PLACES, by their names) and the segments.
constexpr int NP = spec.n_places(), P_HELP = spec.place("help 0"), P_FOUNDATION = spec.place("foundation");
constexpr int P_PACK = spec.place("pack (not visible)");
constexpr int O_LAST = spec.offset("river_last"), O_TOP = spec.offset("help_top");
constexpr int O_GRID = spec.offset("river_grid");
constexpr int O_LEN = spec.offset("river_len"), O_SIZE = spec.offset("help_size");
constexpr int O_FOUND = spec.offset("foundation_rank");
constexpr int O_PACK = spec.offset("pack_size"), O_ROWS = spec.offset("rows"), O_GAPS = spec.offset("gaps");
constexpr int O_EXHAUSTED = spec.offset("pack_exhausted"), OBS_SIZE = spec.obs_size();
static_assert(spec.offset("card_place") == 0 && spec.size("river_grid") == MAX_ROWS * N_COLS);

enum class Kind { RiverF, HelpF, RiverH, Refill, Deal, HelpH };
using Move = pg::Move<Kind>;

// The table: river -> help c-major, help -> help h-major with k != h (itertools.permutations).
constexpr Move move_of(int a) {
    if (a < HELP_F) return {Kind::RiverF, a - RIVER_F, -1};
    if (a < RIVER_H0) return {Kind::HelpF, a - HELP_F, -1};
    if (a < REFILL) return {Kind::RiverH, (a - RIVER_H0) / N_HELPS, (a - RIVER_H0) % N_HELPS};
    if (a == REFILL) return {Kind::Refill, -1, -1};
    if (a == DEAL) return {Kind::Deal, -1, -1};
    const int k = a - HELP_H0, h = k / (N_HELPS - 1), r = k % (N_HELPS - 1);
    return {Kind::HelpH, h, r < h ? r : r + 1};
}

// The action id of "help h -> help k" (h != k).
constexpr int help_to_help(int h, int k) { return HELP_H0 + (N_HELPS - 1) * h + (k < h ? k : k - 1); }

// SAME_SUIT_DOWN (the marriage rule): c is of top's suit and one rank lower.
constexpr bool marry(int top, int c) { return suit_of(c) == suit_of(top) && rank_of(c) == rank_of(top) - 1; }

class Congress final : public Port<Congress, spec> {
public:

    // ---- dealing ------------------------------------------------------------------------------

    void deal(const std::vector<int>& pack) override {
        // take_out(rest, ACES): the first copy of each ace, twice over, so every ace leaves the
        // pack; the other cards are dealt in their order.
        std::array<std::int8_t, 104> rest{};
        int n = 0;
        for (int c : pack)
            if (rank_of(c) != ACE) rest[n++] = static_cast<std::int8_t>(c);
        found_.fill(ACE);  // the eight aces set out, C D H S C D H S
        for (int h = 0; h < N_HELPS; ++h) {
            helps_[h].clear();
            if (h < N_HELPS_EARLY) helps_[h].push(rest[h]);
        }
        for (int c = 0; c < N_COLS; ++c) {
            rivers_[c].clear();
            rivers_[c].push(rest[N_HELPS_EARLY + c]);
        }
        rows_ = 1;
        pack_.clear();
        for (int k = n - 1; k >= N_HELPS_EARLY + N_COLS; --k) pack_.push(rest[k]);  // back() is the next card
    }

    // ---- the rules (congress.py: _foundation_for, _help_takes_from_*, _may_refill, _may_deal) --

    // The leftmost foundation that accepts c (pile f holds suit f % 4 from the deal), or -1.
    int foundation_for(int c) const {
        for (const int f : {suit_of(c), suit_of(c) + 4})
            if (found_[f] == rank_of(c) - 1) return f;
        return -1;
    }

    // Help h takes river card x now: married onto its top, or, once the pack is exhausted, any
    // card starting it.
    bool help_takes_from_rivers(int h, int x) const {
        const auto& help = helps_[h];
        if (!help.empty()) return marry(help.back(), x);
        return pack_.empty();
    }

    // Help h takes help top card x now: married onto its top; an empty help is started from the
    // rivers only.
    bool help_takes_from_helps(int h, int x) const {
        const auto& help = helps_[h];
        return !help.empty() && marry(help.back(), x);
    }

    bool has_gap() const {
        for (const auto& col : rivers_)
            if (col.size() < rows_) return true;
        for (int h = 0; h < N_HELPS_EARLY; ++h)
            if (helps_[h].empty()) return true;
        return false;
    }

    bool may_refill() const { return !pack_.empty() && has_gap(); }
    bool may_deal() const { return !pack_.empty(); }

    static int top_card(const Stack<MAX_ROWS>& pile) { return pile.empty() ? -1 : pile.back(); }

    bool is_legal(int a) const override {
        const Move m = move_of(a);
        switch (m.kind) {
            case Kind::RiverF: {
                const int x = top_card(rivers_[m.src]);
                return x >= 0 && foundation_for(x) >= 0;
            }
            case Kind::HelpF: {
                const int x = top_card(helps_[m.src]);
                return x >= 0 && foundation_for(x) >= 0;
            }
            case Kind::RiverH: {
                const int x = top_card(rivers_[m.src]);
                return x >= 0 && help_takes_from_rivers(m.dst, x);
            }
            case Kind::HelpH: {
                const int x = top_card(helps_[m.src]);
                return x >= 0 && help_takes_from_helps(m.dst, x);
            }
            case Kind::Refill: return may_refill();
            case Kind::Deal: return may_deal();
        }
        return false;
    }

    // The rules of is_legal, computed place by place instead of id by id.
    void legal_mask(std::uint8_t* out) const override {
        std::memset(out, 0, N_ACTIONS);
        for (int c = 0; c < N_COLS; ++c) {
            const int x = top_card(rivers_[c]);
            if (x < 0) continue;
            out[RIVER_F + c] = foundation_for(x) >= 0;
            for (int h = 0; h < N_HELPS; ++h) out[RIVER_H0 + N_HELPS * c + h] = help_takes_from_rivers(h, x);
        }
        for (int h = 0; h < N_HELPS; ++h) {
            const int x = top_card(helps_[h]);
            if (x < 0) continue;
            out[HELP_F + h] = foundation_for(x) >= 0;
            for (int k = 0; k < N_HELPS; ++k)
                if (k != h) out[help_to_help(h, k)] = help_takes_from_helps(k, x);
        }
        out[REFILL] = may_refill();
        out[DEAL] = may_deal();
    }

    // River gaps from the uppermost row down, left to right; then help gaps 0-3.
    void refill() {
        for (int r = 0; r < rows_; ++r)
            for (auto& col : rivers_)
                if (col.size() == r && !pack_.empty()) col.push(pack_.pop());  // gaps lie below a column's cards
        for (int h = 0; h < N_HELPS_EARLY; ++h)
            if (helps_[h].empty() && !pack_.empty()) helps_[h].push(pack_.pop());
    }

    // Up to 8 cards, one per river column left to right (the last row may be short).
    void deal_row() {
        if (pack_.empty()) return;
        for (auto& col : rivers_)
            if (!pack_.empty()) col.push(pack_.pop());
        ++rows_;
    }

    void to_foundation(int c) { ++found_[foundation_for(c)]; }

    void apply(int a) override {
        const Move m = move_of(a);
        switch (m.kind) {
            case Kind::RiverF: to_foundation(rivers_[m.src].pop()); return;
            case Kind::HelpF: to_foundation(helps_[m.src].pop()); return;
            case Kind::RiverH: helps_[m.dst].push(rivers_[m.src].pop()); return;
            case Kind::HelpH: helps_[m.dst].push(helps_[m.src].pop()); return;
            case Kind::Refill: refill(); return;
            case Kind::Deal:
                refill();
                deal_row();
                return;
        }
    }

    // ---- reading the state --------------------------------------------------------------------

    // The eight aces set out before the deal are not counted.
    int foundation_cards() const override {
        int n = 0;
        for (int f : found_) n += f;
        return n - N_FOUND;
    }

    // Foundation f's top card: its suit is f % 4 and it holds ace .. found_[f].
    static int foundation_top(int f, int rank) { return card_of(rank, f % 4); }

    void observe(float* out) const override {
        // card_place holds copies / 2: 0.5 per copy, as Python's np.add.at of float32(0.5).
        for (int c = 0; c < N_COLS; ++c) {
            const auto& col = rivers_[c];
            for (int k = 0; k < col.size(); ++k) {
                out[col[k] * NP + c] += 0.5f;
                out[O_GRID + c + N_COLS * k] = static_cast<float>((col[k] + 1) / 52.0);
            }
            if (!col.empty()) out[O_LAST + N_KINDS * c + col.back()] = 1.0f;
            out[O_LEN + c] = static_cast<float>(col.size() / static_cast<double>(MAX_ROWS));
        }
        for (int h = 0; h < N_HELPS; ++h) {
            const auto& help = helps_[h];
            for (int k = 0; k < help.size(); ++k) out[help[k] * NP + P_HELP + h] += 0.5f;
            if (!help.empty()) out[O_TOP + N_KINDS * h + help.back()] = 1.0f;
            out[O_SIZE + h] = static_cast<float>(help.size() / static_cast<double>(MAX_HELP));
        }
        for (int f = 0; f < N_FOUND; ++f) {
            for (int r = ACE; r <= found_[f]; ++r) out[foundation_top(f, r) * NP + P_FOUNDATION] += 0.5f;
            out[O_FOUND + f] = static_cast<float>(found_[f] / 13.0);
        }
        for (int k = 0; k < pack_.size(); ++k) out[pack_[k] * NP + P_PACK] += 0.5f;
        out[O_PACK] = static_cast<float>(pack_.size() / static_cast<double>(N_PACK));
        out[O_ROWS] = static_cast<float>(rows_ / static_cast<double>(MAX_ROWS));
        out[O_GAPS] = may_refill() ? 1.0f : 0.0f;
        out[O_EXHAUSTED] = pack_.empty() ? 1.0f : 0.0f;
    }

    std::vector<int> cards_in_play() const override {
        std::vector<int> cards;
        append_cards(cards, rivers_);
        append_cards(cards, helps_);
        pack_.append_to(cards);  // Python's pack list order
        for (int f = 0; f < N_FOUND; ++f)
            for (int r = ACE; r <= found_[f]; ++r) cards.push_back(foundation_top(f, r));
        return cards;
    }

    std::string state_key() const override {
        return key_of(rivers_, helps_, pack_, found_, rows_);
    }

    // ---- the solver's hooks (solver.hpp) --------------------------------------------------------

    // The position up to what the rules cannot tell apart:
    // * the two foundations of a suit (f and f + 4) as a sorted pair: both build that suit up
    //   from its ace and a card goes to the first that fits;
    // * the eight helps sorted: every rule treats them alike (a marriage onto any help top, a
    //   river card into any empty help); while the pack lasts only helps 0-3 can hold cards
    //   (4-7 are started from the rivers once the pack is out) and a refill fills their gaps
    //   with the next cards of the pack, one each: the same helps as a multiset whatever their
    //   order;
    // * once the pack is out, the river columns sorted and the row count dropped: the refill and
    //   the deal, the only rules that read a column's place or the rows, need a pack.
    std::string canonical_key() const override {
        std::string key;
        for (int s = 0; s < 4; ++s) {
            key.push_back(static_cast<char>(std::min(found_[s], found_[s + 4])));
            key.push_back(static_cast<char>(std::max(found_[s], found_[s + 4])));
        }
        key_put_sorted(key, helps_);
        key_put(key, pack_);
        if (pack_.empty()) {
            key_put_sorted(key, rivers_);
        } else {
            for (const auto& col : rivers_) key_put(key, col);
            key_put(key, rows_);
        }
        return key;
    }

    // A safe automatic move (solver.hpp): an available card c (rank r) goes up when nothing can
    // ever be married onto it, i.e. both copies of the card one rank lower in its suit are on
    // the foundations (both of the suit's foundations are at r - 1 or above; c fits one at
    // r - 1, so the other copy of c, if still out, fits the other: no race), and taking it
    // away changes no refill: the pack is out, or c is a help top with cards under it (a river
    // card or a lone help card leaves a gap that the next refill or deal would fill, shifting
    // every card after it). Then c only waits to go up or to be married on, to no gain: a
    // winning line from here, c's own moves left out, stays legal and wins after c goes up.
    int safe_move() const override {
        auto never_a_base = [&](int x) {
            const int s = suit_of(x);
            return std::min(found_[s], found_[s + 4]) >= rank_of(x) - 1;
        };
        for (int h = 0; h < N_HELPS; ++h) {
            const int x = top_card(helps_[h]);
            if (x >= 0 && foundation_for(x) >= 0 && never_a_base(x) && (pack_.empty() || helps_[h].size() >= 2))
                return HELP_F + h;
        }
        if (!pack_.empty()) return -1;
        for (int c = 0; c < N_COLS; ++c) {
            const int x = top_card(rivers_[c]);
            if (x >= 0 && foundation_for(x) >= 0 && never_a_base(x)) return RIVER_F + c;
        }
        return -1;
    }


private:
    // position (congress.py STATE)
    std::array<Stack<MAX_ROWS>, N_COLS> rivers_{};  // a column never holds more cards than rows dealt
    std::array<Stack<MAX_HELP>, N_HELPS> helps_{};
    Stack<N_PACK> pack_;                           // back() is the next card (Python's pack[-1])
    std::array<int, N_FOUND> found_{};             // top rank of each foundation, ace = 1 from the start
    int rows_ = 1;
};

// The Congress has no options.
[[maybe_unused]] const bool registered = register_game(spec, [](const Options&) -> std::unique_ptr<Game> {
    return std::make_unique<Congress>();
});

}  // namespace

}  // namespace pg

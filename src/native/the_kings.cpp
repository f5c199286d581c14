// The Kings: the native twin of patience_gym/games/the_kings.py (docs/rules.md section 8). Two packs.
//
// Same action table and observation as the Python module (their ids, offsets and sizes come from
// it, through generated/the_kings_spec.hpp), and the same silent choices, which its docstring
// documents; the comments here only say where C++ differs in form. Texts are Python's alone.
#include <algorithm>
#include <string>

#include "core.hpp"
#include "the_kings_spec.hpp"

namespace pg {
namespace {

constexpr const auto& spec = generated::the_kings;

constexpr int N_LINES = 4;
constexpr int N_ROWS = 2 * N_LINES;
constexpr int N_FOUND = 2 * N_LINES;
constexpr int N_DEALT = 104 - N_FOUND;  // 96 cards go to the rows (or to the foundations during the deal)
constexpr int MAX_DEPTH = N_DEALT - 1;

// Action ids (the_kings.TABLE): row i -> foundation, then row i -> row j, i-major.
constexpr int TO_FOUNDATION = spec.first("ROW_TO_FOUNDATION"), ROW_TO_ROW = spec.first("ROW_TO_ROW");
constexpr int N_ACTIONS = spec.n_actions();
static_assert(spec.count("ROW_TO_FOUNDATION") == N_ROWS && spec.count("ROW_TO_ROW") == N_ROWS * (N_ROWS - 1));

// Observation places per card copy (the eight rows, then "foundation") and offsets (TheKings.LAYOUT).
constexpr int N_PLACES = spec.n_places(), ON_FOUNDATION = spec.place("foundation");
static_assert(spec.place("row L0") == 0 && spec.place("row R0") == N_LINES);
constexpr int O_PLACE = spec.offset("card_place"), O_DEPTH = spec.offset("card_depth");
constexpr int O_OUTER = spec.offset("outer_card");
constexpr int O_LEN = spec.offset("row_length"), O_LANE = spec.offset("lane");
constexpr int O_FOUND = spec.offset("foundation_height");
constexpr int OBS_SIZE = spec.obs_size();

enum class Kind { RowToFoundation, RowToRow };
using Move = pg::Move<Kind>;

constexpr Move move_of(int a) {
    if (a < ROW_TO_ROW) return {Kind::RowToFoundation, a - TO_FOUNDATION, -1};
    const int k = a - ROW_TO_ROW, i = k / (N_ROWS - 1), r = k % (N_ROWS - 1);
    return {Kind::RowToRow, i, r < i ? r : r + 1};
}

// A row never holds more than the 96 dealt cards; a foundation holds an ace up to its king.
using Row = Stack<N_DEALT>;
using Foundation = Stack<13>;

class TheKings final : public Port<TheKings, spec> {
public:
    explicit TheKings(bool monotone) : monotone_(monotone) {}


    // ---- the deal (the_kings.py: line_foundation, play_outside_cards, kings_deal) ------------

    // Foundations are built up regardless of suit and never empty (each starts with its ace).
    bool fits(int f, int c) const { return rank_of(c) == rank_of(found_[f].back()) + 1; }

    // The foundation on `line` that c fits during the deal (the left one first), or -1.
    int line_foundation(int line, int c) const {
        for (int f = 2 * line; f < 2 * line + 2; ++f)
            if (fits(f, c)) return f;
        return -1;
    }

    // After a foundation on `line` rose during the deal: play the line's outside cards that fit,
    // the left row first, until none does (each play can make the other row's card fit).
    void play_outside_cards(std::array<bool, N_ROWS>& outside, int line) {
        bool played = true;
        while (played) {
            played = false;
            for (int r : {line, N_LINES + line}) {
                if (!outside[r]) continue;
                const int f = line_foundation(line, rows_[r].back());
                if (f >= 0) {
                    found_[f].push(rows_[r].pop());
                    outside[r] = false;  // the card it uncovers is an inner one, blocked
                    played = true;
                }
            }
        }
    }

    void deal(const std::vector<int>& pack) override {
        // take_out: the eight aces (the first copy of each suit's, then the second) become
        // foundations 0..7, suits C D H S twice; the other 96 cards are dealt in order.
        std::array<std::int8_t, N_DEALT> rest;
        int n = 0;
        for (int c : pack)
            if (rank_of(c) != ACE && n < N_DEALT) rest[n++] = static_cast<std::int8_t>(c);
        for (int f = 0; f < N_FOUND; ++f) {
            found_[f].clear();
            found_[f].push(card_of(ACE, f % 4));
        }
        for (auto& r : rows_) r.clear();
        std::array<bool, N_ROWS> outside{};  // row r's last card is still its outside card
        int k = 0;
        for (int column = 0; k < n; ++column) {
            const int side = column % 2;
            for (int line = 0; line < N_LINES; ++line) {
                const int r = N_LINES * side + line;
                while (k < n) {
                    const int c = rest[k++];
                    const int f = line_foundation(line, c);
                    if (f < 0) {
                        rows_[r].push(c);  // covers the row's previous card: now an inner one
                        outside[r] = true;
                        break;
                    }
                    found_[f].push(c);
                    play_outside_cards(outside, line);
                }
            }
        }
        on_start_ = all_foundation_cards();
    }

    // ---- the rules (the_kings.py: _foundation_for, _foundations_take, _ranks_into) -----------

    // The lowest-numbered foundation one rank below c, or -1.
    int foundation_for(int c) const {
        for (int f = 0; f < N_FOUND; ++f)
            if (fits(f, c)) return f;
        return -1;
    }

    // Some foundation takes c now.
    bool foundations_take(int c) const { return foundation_for(c) >= 0; }

    // Row dst takes an outermost card of `rank` from another row holding `several` cards (more
    // than one) or one. A lane takes any rank, except a row's only card (the move would only swap
    // two rows' places). A row takes one rank apart, any suit; under monotone only the rank that
    // continues its outermost pair when that pair is in sequence.
    bool rank_into(const Row& dst, int rank, bool several) const {
        if (dst.empty()) return several;
        const int top = rank_of(dst.back());
        if (monotone_ && dst.size() > 1) {
            const int step = top - rank_of(dst[dst.size() - 2]);
            if (step == 1 || step == -1) return rank == top + step;
        }
        return rank == top - 1 || rank == top + 1;
    }

    bool is_legal(int a) const override {
        const Move m = move_of(a);
        const Row& src = rows_[m.src];
        if (src.empty()) return false;
        switch (m.kind) {
            case Kind::RowToFoundation: return foundations_take(src.back());
            case Kind::RowToRow: return rank_into(rows_[m.dst], rank_of(src.back()), src.size() > 1);
        }
        return false;
    }

    // The same predicates as is_legal, row by row (the table's order: move_of), each source
    // row's outermost card read once.
    void legal_mask(std::uint8_t* out) const override {
        for (int i = 0; i < N_ROWS; ++i) {
            const Row& src = rows_[i];
            std::uint8_t* to_row = out + ROW_TO_ROW + i * (N_ROWS - 1);
            if (src.empty()) {
                out[TO_FOUNDATION + i] = 0;
                std::fill(to_row, to_row + (N_ROWS - 1), std::uint8_t{0});
                continue;
            }
            const int c = src.back();
            const bool several = src.size() > 1;
            out[TO_FOUNDATION + i] = foundations_take(c) ? 1 : 0;
            for (int r = 0; r < N_ROWS - 1; ++r) to_row[r] = rank_into(rows_[r < i ? r : r + 1], rank_of(c), several) ? 1 : 0;
        }
    }

    void apply(int a) override {
        const Move m = move_of(a);
        Row& src = rows_[m.src];
        switch (m.kind) {
            case Kind::RowToFoundation: {
                const int c = src.pop();
                found_[foundation_for(c)].push(c);
                return;
            }
            case Kind::RowToRow: rows_[m.dst].push(src.pop()); return;
        }
    }

    // ---- reading the state --------------------------------------------------------------------

    int all_foundation_cards() const {
        int n = 0;
        for (const auto& f : found_) n += f.size();
        return n;
    }

    // The eight aces set out before the deal are left out.
    int foundation_cards() const override { return all_foundation_cards() - N_FOUND; }

    void extra_values(std::int64_t* out) const override {
        // where each extra goes, fixed at compile time
        constexpr int X_CARDS_ON_FOUNDATIONS = spec.extra("cards_on_foundations");
        constexpr int X_DEALT_TO_FOUNDATIONS = spec.extra("dealt_to_foundations");
        out[X_CARDS_ON_FOUNDATIONS] = all_foundation_cards();
        out[X_DEALT_TO_FOUNDATIONS] = on_start_ - N_FOUND;
    }

    void observe(float* out) const override {
        std::array<int, N_KINDS> seen{};  // copies of each id met so far: the next copy's k
        // Python scales card_depth in float32 (out[depth] *= 1.0 / 95 on a float32 array), so
        // the factor is rounded to float first and the product is a float product.
        const float per_depth = static_cast<float>(1.0 / MAX_DEPTH);
        for (int i = 0; i < N_ROWS; ++i) {
            const Row& row = rows_[i];
            if (row.empty()) continue;
            out[O_OUTER + N_KINDS * i + row.back()] = 1.0f;
            for (int d = 0; d < row.size(); ++d) {  // outer end inward
                const int c = row[row.size() - 1 - d];
                const int slot = 2 * c + seen[c]++;
                out[O_PLACE + slot * N_PLACES + i] = 1.0f;
                if (d) out[O_DEPTH + slot] = static_cast<float>(d) * per_depth;
            }
        }
        for (const auto& pile : found_)
            for (int k = 0; k < pile.size(); ++k) {
                const int c = pile[k];
                out[O_PLACE + (2 * c + seen[c]++) * N_PLACES + ON_FOUNDATION] = 1.0f;
            }
        // Computed in double and rounded once, as Python's float -> numpy float32.
        for (int i = 0; i < N_ROWS; ++i) {
            out[O_LEN + i] = static_cast<float>(rows_[i].size() / double(N_DEALT));
            out[O_LANE + i] = rows_[i].empty() ? 1.0f : 0.0f;
        }
        for (int f = 0; f < N_FOUND; ++f) out[O_FOUND + f] = static_cast<float>(found_[f].size() / double(KING));
    }

    std::vector<int> cards_in_play() const override {
        std::vector<int> cards;
        append_cards(cards, rows_);
        append_cards(cards, found_);
        return cards;
    }

    std::string state_key() const override {
        return key_of(rows_, found_);
    }

    // ---- the solver's hooks (solver.hpp) -------------------------------------------------------

    // The position up to what the rules cannot tell apart. After the deal no rule looks at a
    // suit (foundations build up regardless of suit, rows take a card one rank either side), and
    // none at a row's or a foundation's place (any row may go to any row, any lane takes any
    // available card, a card goes to whichever foundation it fits): so each row as its ranks,
    // the rows as a multiset (sorted), and the foundation heights as a multiset (sorted).
    // The deal has already been played out automatically when the solver starts.
    std::string canonical_key() const override {
        std::array<std::string, N_ROWS> rows;
        for (int i = 0; i < N_ROWS; ++i) {
            rows[i].resize(static_cast<std::size_t>(rows_[i].size()));
            for (int k = 0; k < rows_[i].size(); ++k) rows[i][k] = static_cast<char>(rank_of(rows_[i][k]));
        }
        std::sort(rows.begin(), rows.end(), [](const std::string& a, const std::string& b) {
            return a.size() != b.size() ? a.size() < b.size() : a < b;
        });
        std::array<int, N_FOUND> heights{};
        for (int f = 0; f < N_FOUND; ++f) heights[f] = found_[f].size();
        std::sort(heights.begin(), heights.end());
        std::string key;
        key.reserve(N_DEALT + 2 * N_ROWS + N_FOUND);
        for (const auto& r : rows) {
            key.push_back(static_cast<char>(r.size()));
            key += r;
        }
        for (int h : heights) key.push_back(static_cast<char>(h));
        return key;
    }

    // Ordering only: a move that empties a row (a new lane) first, then one that uncovers a
    // card that fits a foundation, then the rest; filling a lane last (lanes are scarce).
    int move_priority(int a) const override {
        const Move m = move_of(a);
        if (m.kind != Kind::RowToRow) return 0;
        const Row& src = rows_[m.src];
        if (rows_[m.dst].empty()) return -1;
        if (src.size() == 1) return 3;
        if (foundations_take(src[src.size() - 2])) return 2;
        return 0;
    }


private:
    // configuration
    bool monotone_;
    // position (the_kings.py STATE: rows, foundations); rows from the inner end outward
    std::array<Row, N_ROWS> rows_{};
    std::array<Foundation, N_FOUND> found_{};
    // Per deal, not state: the foundation cards (aces included) when the deal ended.
    int on_start_ = N_FOUND;
};

// the_kings.TheKings.OPTIONS: sequences ("monotone" or "either").
[[maybe_unused]] const bool registered = register_game(spec, [](const Options& o) -> std::unique_ptr<Game> {
    return std::make_unique<TheKings>(o["sequences"] == spec.choice("sequences", "monotone"));
});

}  // namespace

}  // namespace pg

// Babette: the native twin of patience_gym/games/babette.py (docs/rules.md section 3). Two packs.
//
// Same action table and observation as the Python module (their ids, offsets and sizes come from
// it, through generated/babette_spec.hpp), and the same silent choices, which its docstring
// documents; the comments here only say where C++ differs in form. Texts are Python's alone.
#include <cstring>
#include <string>

#include "core.hpp"
#include "babette_spec.hpp"

namespace pg {
namespace {

constexpr const auto& spec = generated::babette;

constexpr int N_COLS = 8;
constexpr int N_ROWS = 13;  // 104 cards, 8 a row
constexpr int N_PLACES = N_ROWS * N_COLS;
constexpr int N_REDEALS = 2;
constexpr int N_CARDS = 2 * N_KINDS;
constexpr int N_SUITS = 4;
constexpr int EMPTY = -1;  // a garden place with no card: vacated, or not dealt in a short last row

// Foundations 0-3 ascend (started by the suit's ace), 4-7 descend (started by its king).
constexpr int UP_ROW = 0, DOWN_ROW = N_SUITS, N_FOUND = 2 * N_SUITS;

// Action ids: the first of each kind in babette.TABLE.
constexpr int UP0 = spec.first("UP"), DOWN0 = spec.first("DOWN"), DEAL = spec.first("DEAL");
constexpr int REDEAL = spec.first("REDEAL");
constexpr int N_ACTIONS = spec.n_actions();
static_assert(spec.count("UP") == N_PLACES && spec.count("DOWN") == N_PLACES && DEAL == DOWN0 + N_PLACES);

// Observation offsets (babette.Babette.LAYOUT).
constexpr int O_GARDEN = spec.offset("garden"), O_AVAIL = spec.offset("available");
constexpr int O_ROWS = spec.offset("rows_dealt");
constexpr int O_FOUND = spec.offset("foundation"), O_UNSEEN = spec.offset("unseen");
constexpr int O_PACK = spec.offset("pack_size");
constexpr int O_REDEALS = spec.offset("redeals_left");
// recall=True appends the re-dealt pack's rows (pile_rows.PACK_SEGMENTS); without it the layout ends there.
constexpr int O_PACK_CARDS = spec.offset("pack_cards"), O_PACK_DEPTH = spec.offset("pack_depth");
constexpr int O_PACK_LOWER = spec.offset("pack_depth_lower");
static_assert(spec.size("garden") == N_PLACES * N_KINDS && spec.size("foundation") == N_FOUND);

enum class Kind { Up, Down, Deal, Redeal };
// src: the garden place (Up, Down); dst: the foundation row the card goes to, UP_ROW or DOWN_ROW.
using Move = pg::Move<Kind>;

constexpr Move move_of(int a) {
    if (a < DOWN0) return {Kind::Up, a - UP0, UP_ROW};
    if (a < DEAL) return {Kind::Down, a - DOWN0, DOWN_ROW};
    if (a == DEAL) return {Kind::Deal, -1, -1};
    return {Kind::Redeal, -1, -1};
}

// The rank that would complete each foundation (king up, ace down), and the suit's other pile.
constexpr int last_rank(int f) { return f < DOWN_ROW ? KING : ACE; }
constexpr int other_pile(int f) { return (f + N_SUITS) % N_FOUND; }

class Babette final : public Port<Babette, spec> {
public:
    explicit Babette(bool recall) : recall_(recall) {}
    int obs_size() const override { return recall_ ? spec.obs_size() : O_PACK_CARDS; }

    // ---- dealing ------------------------------------------------------------------------------

    void deal(const std::vector<int>& pack) override {
        grid_.fill(EMPTY);
        rows_ = 0;
        pack_.clear();
        for (int j = static_cast<int>(pack.size()) - 1; j >= 0; --j) pack_.push(pack[j]);  // back() dealt next
        for (auto& f : found_) f.clear();
        redeals_ = 0;
        deal_row();
    }

    void deal_row() {
        if (rows_ >= N_ROWS) throw std::logic_error("Babette: a 14th garden row");  // a rules bug
        for (int c = 0; c < N_COLS; ++c) grid_[rows_ * N_COLS + c] = static_cast<std::int8_t>(pack_.empty() ? EMPTY : pack_.pop());
        ++rows_;
    }

    // ---- the rules (babette.py: released, is_available, card_at, fits, _may_deal, _may_redeal) --

    int at(int r, int c) const { return grid_[r * N_COLS + c]; }

    // Cadogan rule III: a card lies at (r, c) and the place below it is empty (only the next
    // row blocks). Rows not dealt yet are all EMPTY, so the row below the last needs no guard
    // beyond the grid's end.
    bool released(int r, int c) const {
        return at(r, c) != EMPTY && (r + 1 >= rows_ || at(r + 1, c) == EMPTY);
    }

    bool is_available(int r, int c) const { return r < rows_ && released(r, c); }

    // The available card at garden place p, or -1.
    int card_at(int p) const {
        const int r = p / N_COLS, c = p % N_COLS;
        return is_available(r, c) ? at(r, c) : -1;
    }

    // The pile's build (suit's ace starts up, king starts down, then in suit one rank up or
    // down), and a card that would complete the pile only once the suit's other pile is started.
    bool builds(int f, int c) const {
        const auto& pile = found_[f];
        const int suit = f % N_SUITS;
        if (suit_of(c) != suit) return false;
        if (pile.empty()) return c == card_of(f < DOWN_ROW ? ACE : KING, suit);
        return rank_of(c) == rank_of(pile.back()) + (f < DOWN_ROW ? 1 : -1);
    }

    bool fits(int f, int c) const {
        return builds(f, c) && (rank_of(c) != last_rank(f) || !found_[other_pile(f)].empty());
    }

    bool may_deal() const { return !pack_.empty(); }

    bool may_redeal() const {
        if (!pack_.empty() || redeals_ == N_REDEALS) return false;
        for (int p = 0; p < rows_ * N_COLS; ++p)
            if (grid_[p] != EMPTY) return true;
        return false;
    }

    // Opens as Louis's does (a scan pairs them): both tables start with the up and down moves.
    bool is_legal(int a) const override {
        const Move m = move_of(a);
        switch (m.kind) {
            case Kind::Up:
            case Kind::Down: {
                const int x = card_at(m.src);
                return x >= 0 && fits(m.dst + suit_of(x), x);
            }
            case Kind::Deal: return may_deal();
            case Kind::Redeal: return may_redeal();
        }
        return false;
    }

    // The same predicates as is_legal, asked only at the available places (available_places).
    void legal_mask(std::uint8_t* out) const override {
        std::memset(out, 0, N_ACTIONS);
        for (int r = 0; r < rows_; ++r)
            for (int c = 0; c < N_COLS; ++c) {
                if (!released(r, c)) continue;
                const int x = at(r, c), p = r * N_COLS + c;
                out[UP0 + p] = fits(UP_ROW + suit_of(x), x);
                out[DOWN0 + p] = fits(DOWN_ROW + suit_of(x), x);
            }
        out[DEAL] = may_deal();
        out[REDEAL] = may_redeal();
    }

    void apply(int a) override {
        const Move m = move_of(a);
        switch (m.kind) {
            case Kind::Up:
            case Kind::Down: {
                const int x = grid_[m.src];
                grid_[m.src] = EMPTY;  // a vacancy, never refilled
                found_[m.dst + suit_of(x)].push(x);
                return;
            }
            case Kind::Deal: deal_row(); return;
            case Kind::Redeal: {
                // gather: columns right to left, each from its first-dealt card, vacancies
                // skipped; that list is the new pack, first card dealt first.
                std::array<std::int8_t, N_CARDS> gathered;
                int n = 0;
                for (int c = N_COLS - 1; c >= 0; --c)
                    for (int r = 0; r < rows_; ++r)
                        if (at(r, c) != EMPTY) gathered[n++] = static_cast<std::int8_t>(at(r, c));
                pack_.clear();
                for (int k = n - 1; k >= 0; --k) pack_.push(gathered[k]);
                grid_.fill(EMPTY);
                rows_ = 0;
                ++redeals_;
                deal_row();  // automatic: the first row of the new pack
                return;
            }
        }
    }

    // ---- reading the state --------------------------------------------------------------------

    int foundation_cards() const override {
        int n = 0;
        for (const auto& f : found_) n += f.size();
        return n;
    }

    void extra_values(std::int64_t* out) const override {
        // where each extra goes, fixed at compile time
        constexpr int X_REDEALS_LEFT = spec.extra("redeals_left");
        out[X_REDEALS_LEFT] = N_REDEALS - redeals_;
    }

    void observe(float* out) const override {
        observe_cards(out, 0);
        observe_rest(out);
    }

    // The garden's one-hot cells of the cards lying in rows from_row.. (the big, sparse segment).
    void observe_cards(float* out, int from_row) const {
        for (int p = from_row * N_COLS; p < rows_ * N_COLS; ++p)
            if (grid_[p] != EMPTY) out[O_GARDEN + p * N_KINDS + grid_[p]] = 1.0f;
    }

    // Every segment after the garden's cells, each written in full.
    void observe_rest(float* out) const {
        std::array<int, N_KINDS> seen{};  // copies of each card on the table
        for (int r = 0; r < rows_; ++r)
            for (int c = 0; c < N_COLS; ++c) {
                const int x = at(r, c);
                if (x == EMPTY) continue;
                ++seen[x];
                out[O_AVAIL + r * N_COLS + c] = released(r, c) ? 1.0f : 0.0f;
            }
        for (const auto& f : found_)
            for (int k = 0; k < f.size(); ++k) ++seen[f[k]];
        // Computed in double and rounded once, as Python's float -> numpy float32.
        for (int x = 0; x < N_KINDS; ++x) out[O_UNSEEN + x] = static_cast<float>((2 - seen[x]) / 2.0);
        out[O_ROWS] = static_cast<float>(rows_ / double(N_ROWS));
        for (int f = 0; f < N_FOUND; ++f) out[O_FOUND + f] = static_cast<float>(found_[f].size() / 13.0);
        out[O_PACK] = static_cast<float>(pack_.size() / double(N_CARDS));
        out[O_REDEALS] = static_cast<float>((N_REDEALS - redeals_) / double(N_REDEALS));
        if (recall_ && redeals_ > 0)  // the first deal's pack was never seen
            pile_rows(pack_, out + O_PACK_CARDS, out + O_PACK_DEPTH, out + O_PACK_LOWER);
    }

    // The garden's cells of the cards lying there and the segments after them.
    void unobserve(float* out) const override {
        for (int p = 0; p < rows_ * N_COLS; ++p)
            if (grid_[p] != EMPTY) out[O_GARDEN + p * N_KINDS + grid_[p]] = 0.0f;
        std::memset(out + O_AVAIL, 0, sizeof(float) * (obs_size() - O_AVAIL));
    }

    // A move to a foundation takes one card from the garden and a deal adds a row: only those
    // cells of the garden change (a re-deal moves them all), and the small segments after it.
    void unobserve_move(int a, float* out) const override {
        const Move m = move_of(a);
        if (m.kind == Kind::Redeal) return unobserve(out);
        if (m.kind != Kind::Deal) out[O_GARDEN + m.src * N_KINDS + grid_[m.src]] = 0.0f;
        std::memset(out + O_AVAIL, 0, sizeof(float) * (obs_size() - O_AVAIL));
    }

    void observe_move(int a, float* out) const override {
        const Move m = move_of(a);
        if (m.kind == Kind::Redeal) return observe(out);
        if (m.kind == Kind::Deal) observe_cards(out, rows_ - 1);
        observe_rest(out);
    }

    std::vector<int> cards_in_play() const override {
        std::vector<int> cards;
        for (int p = 0; p < rows_ * N_COLS; ++p)
            if (grid_[p] != EMPTY) cards.push_back(grid_[p]);
        pack_.append_to(cards);
        append_cards(cards, found_);
        return cards;
    }

    std::string state_key() const override {
        std::string key(reinterpret_cast<const char*>(grid_.data()), grid_.size());
        key_put(key, rows_);
        key_put(key, pack_);
        for (const auto& f : found_) key_put(key, f);
        key_put(key, redeals_);
        return key;
    }

    // ---- the solver's hooks (solver.hpp) -------------------------------------------------------

    // Copies of card c (suit s, rank r) on the foundations: s's ascending pile holds r once it
    // is r high, the descending one once it is 14 - r high.
    int copies_on_foundations(int c) const {
        const int s = suit_of(c), r = rank_of(c);
        return (found_[UP_ROW + s].size() >= r) + (found_[DOWN_ROW + s].size() >= KING + 1 - r);
    }

    // After the last re-deal, an available card c that fits a foundation f while its twin is on
    // the foundations already. Safe: each pile holds each rank of its suit once, so with the
    // twin's rank already on the suit's other pile, f needs a copy of c before its next card and
    // c is the only one left: any winning line L plays c onto f at some point. Playing it first
    // leaves every other move of L legal: with no re-deal to come, the garden only loses cards
    // and gains rows dealt below it; c's place empty sooner only releases the card above it
    // sooner (a card is available when the place below it is empty) and c can no longer be
    // blocked by a new row; foundations only grow, so the ace-on-king / king-on-ace condition
    // (the suit's other pile started) holds in L' whenever it holds in L.
    // Before the last re-deal no card is played automatically: the cards left in the garden
    // become the next pack in column order, so taking one out shifts every later card's place.
    int safe_move() const override {
        if (redeals_ != N_REDEALS) return -1;
        for (int r = 0; r < rows_; ++r)
            for (int col = 0; col < N_COLS; ++col) {
                if (!released(r, col)) continue;
                const int x = at(r, col), p = r * N_COLS + col;
                if (copies_on_foundations(x) != 1) continue;
                if (fits(UP_ROW + suit_of(x), x)) return UP0 + p;
                if (fits(DOWN_ROW + suit_of(x), x)) return DOWN0 + p;
            }
        return -1;
    }

    // Ordering only: foundation moves that release the card above them first, then the other
    // foundation moves, then dealing a row, then re-dealing.
    int move_priority(int a) const override {
        const Move m = move_of(a);
        switch (m.kind) {
            case Kind::Up:
            case Kind::Down: {
                const int r = m.src / N_COLS, col = m.src % N_COLS;
                return r > 0 && at(r - 1, col) != EMPTY ? 2 : 1;
            }
            case Kind::Deal: return 0;
            case Kind::Redeal: return -1;
        }
        return 0;
    }


private:
    // position (babette.py STATE: grid, pack, foundations, redeals)
    std::array<std::int8_t, N_PLACES> grid_{};  // grid_[8 * row + column]; rows not dealt are EMPTY
    int rows_ = 0;                              // rows laid out in the current garden
    Stack<N_CARDS> pack_;                       // back() is the next card dealt (Python's pack[-1])
    std::array<Stack<13>, N_FOUND> found_{};    // a pile holds one suit's ace..king or king..ace
    int redeals_ = 0;
    bool recall_ = false;  // recall=True: the observation gives a re-dealt pack's order
};

// babette.Babette.OPTIONS: recall.
[[maybe_unused]] const bool registered = register_game(spec, [](const Options& o) -> std::unique_ptr<Game> {
    return std::make_unique<Babette>(o["recall"] != 0);
});

}  // namespace

}  // namespace pg

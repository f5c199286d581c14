// Klondike: the native twin of patience_gym/games/klondike.py (docs/rules.md section 1).
//
// Same action table and observation as the Python module (their ids, offsets and sizes come from
// it, through generated/klondike_spec.hpp), and the same silent choices, which its docstring
// documents; the comments here only say where C++ differs in form. Texts are Python's alone.
#include <algorithm>
#include <cstring>
#include <string>

#include "core.hpp"
#include "klondike_spec.hpp"

namespace pg {
namespace {

constexpr const auto& spec = generated::klondike;

constexpr int N_PILES = 7;
// Action ids: the first of each kind in klondike.TABLE.
constexpr int TALON_F = spec.first("TALON_TO_FOUNDATION"), PILE_F0 = spec.first("PILE_TO_FOUNDATION");
constexpr int TALON_P0 = spec.first("TALON_TO_PILE"), STOCK = spec.first("STOCK");
constexpr int PILE_P0 = spec.first("PILE_TO_PILE");
// worrying_back=True appends "foundation f -> pile j" (f-major); without it the table ends there.
constexpr int FOUND_P0 = spec.first("FOUNDATION_TO_PILE"), N_ACTIONS = spec.n_actions();
static_assert(spec.count("PILE_TO_FOUNDATION") == N_PILES &&
              spec.count("PILE_TO_PILE") == N_PILES * (N_PILES - 1) && FOUND_P0 == PILE_P0 + N_PILES * (N_PILES - 1) &&
              N_ACTIONS == FOUND_P0 + 4 * N_PILES);
// Observation places per card (klondike.PLACES, by their names) and the scalars after card_place.
constexpr int NP = spec.n_places(), FOUNDATION = spec.place("foundation"), TALON_TOP = spec.place("talon top");
constexpr int TALON_BELOW = spec.place("talon below the top three (seen)");
constexpr int HIDDEN = spec.place("not visible (face down in a pile, or in the stock)"), FAN = 3;
// face_down (7), foundation (4), stock_size, talon_size, passes_left: side by side, in this order.
constexpr int O_DOWN = spec.offset("face_down");
static_assert(spec.offset("foundation") == O_DOWN + N_PILES && spec.offset("passes_left") == O_DOWN + 13);
// stock="known" appends stock_order (a card's turn in the stock); without it the layout ends there.
constexpr int O_STOCK_ORDER = spec.offset("stock_order"), OBS_SIZE = spec.obs_size();
static_assert(O_STOCK_ORDER == spec.offset("passes_left") + 1 && OBS_SIZE == O_STOCK_ORDER + N_KINDS);
constexpr int N_STOCK = 24;
// A pile holds at most 6 face-down cards and a king-to-ace build.
constexpr int PILE_CAP = 6 + 13;

enum class Kind { TalonF, PileF, TalonP, Stock, PileP, FoundP };
using Move = pg::Move<Kind>;

// The table, i-major for pile -> pile as in klondike._table().
constexpr Move move_of(int a) {
    if (a == TALON_F) return {Kind::TalonF, -1, -1};
    if (a < TALON_P0) return {Kind::PileF, a - PILE_F0, -1};
    if (a < STOCK) return {Kind::TalonP, -1, a - TALON_P0};
    if (a == STOCK) return {Kind::Stock, -1, -1};
    if (a >= FOUND_P0) return {Kind::FoundP, (a - FOUND_P0) / N_PILES, (a - FOUND_P0) % N_PILES};
    const int k = a - PILE_P0, i = k / 6, r = k % 6;
    return {Kind::PileP, i, r < i ? r : r + 1};
}

// The action id of "pile i -> pile j" (i != j).
constexpr int pile_to_pile(int i, int j) { return PILE_P0 + 6 * i + (j < i ? j : j - 1); }

class Klondike final : public Port<Klondike, spec> {
public:
    Klondike(int draw, int passes, bool partial, bool known_stock, bool worrying)
        : draw_(draw), passes_(passes), partial_(partial), known_stock_(known_stock), worrying_(worrying) {}

    int obs_size() const override { return known_stock_ ? OBS_SIZE : O_STOCK_ORDER; }
    int n_actions() const override { return worrying_ ? N_ACTIONS : FOUND_P0; }

    void deal(const std::vector<int>& pack) override {
        int k = 0;
        for (auto& p : piles_) p.clear();
        for (int row = 0; row < N_PILES; ++row)
            for (int i = row; i < N_PILES; ++i) piles_[i].push(pack[k++]);
        for (int i = 0; i < N_PILES; ++i) down_[i] = i;
        stock_.clear();
        for (int j = static_cast<int>(pack.size()) - 1; j >= k; --j) stock_.push(pack[j]);  // back() turns next
        talon_.clear();
        found_ = {0, 0, 0, 0};
        passes_used_ = 1;
        hashed_ = 0;
    }

    // ---- the rules (klondike.py: _to_foundation, _to_pile, _can_pass, _run_start) ---------------

    bool to_foundation(int c) const { return found_[suit_of(c)] == rank_of(c) - 1; }

    bool to_pile(int c, int j) const {
        const auto& pile = piles_[j];
        if (pile.empty()) return rank_of(c) == KING;
        return rank_of(c) != ACE && alternate_down(pile.back(), c);
    }

    // worrying_back: foundation f's top card may come back onto pile j, where it fits as any card.
    bool back(int f, int j) const { return found_[f] > 0 && to_pile(card_of(found_[f], f), j); }

    bool can_pass() const { return !talon_.empty() && (passes_ < 0 || passes_used_ < passes_); }

    // Index in pile i of the card that would head a move to pile j, or -1. A whole pile never
    // moves into an empty pile: that only swaps two piles' places.
    int run_start(int i, int j) const {
        const auto& pile = piles_[i];
        const int first = down_[i];
        if (pile.empty() || (first == 0 && piles_[j].empty())) return -1;
        if (!partial_) return to_pile(pile[first], j) ? first : -1;
        for (int k = first; k < pile.size(); ++k)
            if (to_pile(pile[k], j)) return k;
        return -1;
    }

    bool is_legal(int a) const override {
        const Move m = move_of(a);
        switch (m.kind) {
            case Kind::Stock: return !stock_.empty() || can_pass();
            case Kind::TalonF: return !talon_.empty() && to_foundation(talon_.back());
            case Kind::TalonP: return !talon_.empty() && to_pile(talon_.back(), m.dst);
            case Kind::PileF: return !piles_[m.src].empty() && to_foundation(piles_[m.src].back());
            case Kind::PileP: return run_start(m.src, m.dst) >= 0;
            case Kind::FoundP: return worrying_ && back(m.src, m.dst);
        }
        return false;
    }

    // The same rules as is_legal, enumerated pile by pile (pile_runs for pile -> pile).
    void legal_mask(std::uint8_t* out) const override {
        std::memset(out, 0, static_cast<std::size_t>(n_actions()));
        out[STOCK] = !stock_.empty() || can_pass();
        if (!talon_.empty()) {
            const int t = talon_.back();
            out[TALON_F] = to_foundation(t);
            for (int j = 0; j < N_PILES; ++j) out[TALON_P0 + j] = to_pile(t, j);
        }
        for (int i = 0; i < N_PILES; ++i)
            if (!piles_[i].empty()) out[PILE_F0 + i] = to_foundation(piles_[i].back());
        std::array<std::int8_t, FOUND_P0> runs;
        pile_runs(runs.data());
        for (int a = PILE_P0; a < FOUND_P0; ++a) out[a] = runs[a] >= 0;
        if (worrying_)
            for (int a = FOUND_P0; a < N_ACTIONS; ++a) out[a] = back(move_of(a).src, move_of(a).dst);
    }

    // The suits whose cards may go onto pile j (to_pile still decides): all four onto an empty
    // pile, else the two of the other colour than its last card's. Enumeration only, to ask fewer.
    struct Suits {
        std::array<int, 4> s;
        int n;
        const int* begin() const { return s.data(); }
        const int* end() const { return s.data() + n; }
    };
    Suits suits_onto(int j) const {
        if (piles_[j].empty()) return {{0, 1, 2, 3}, 4};
        return is_red(piles_[j].back()) ? Suits{{0, 3, 0, 0}, 2} : Suits{{1, 2, 0, 0}, 2};  // C S black, D H red
    }

    // run_start(i, j) of every pile -> pile action (at its id; -1 where illegal). A move onto a
    // non-empty pile j needs one of the two cards that fit j's last card face up in some pile i;
    // a pile's face-up cards are one build (every rule that puts a card on a pile builds down in
    // alternate colours, and a card turns up only on an empty run), so that card is the only one
    // of pile i that fits j, and run_start(i, j) is its place (without partial moves, only when
    // it heads the face-up run). An empty pile asks run_start of every pile. The solver's moves
    // read the run's head from here, so a move's head is found once.
    void pile_runs(std::int8_t* runs) const {
        std::memset(runs + PILE_P0, -1, FOUND_P0 - PILE_P0);
        std::array<std::int8_t, N_KINDS> pile_of;  // the pile showing each face-up card, or -1
        std::array<std::int8_t, N_KINDS> at;       // and its place there (read only where shown)
        pile_of.fill(-1);
        for (int i = 0; i < N_PILES; ++i) {
            const auto& pile = piles_[i];
            for (int k = down_[i]; k < pile.size(); ++k) {
                pile_of[pile[k]] = static_cast<std::int8_t>(i);
                at[pile[k]] = static_cast<std::int8_t>(k);
            }
        }
        for (int j = 0; j < N_PILES; ++j) {
            if (piles_[j].empty()) {
                for (int i = 0; i < N_PILES; ++i)
                    if (i != j) runs[pile_to_pile(i, j)] = static_cast<std::int8_t>(run_start(i, j));
                continue;
            }
            const int last = piles_[j].back();
            if (rank_of(last) <= 2) continue;  // only an ace fits a two, and an ace never goes on a pile
            for (const int suit : suits_onto(j)) {
                const int c = card_of(rank_of(last) - 1, suit);
                const int i = pile_of[c];
                if (i >= 0 && i != j && alternate_down(last, c) && (partial_ || at[c] == down_[i]))
                    runs[pile_to_pile(i, j)] = at[c];
            }
        }
    }

    void apply(int a) override {
        const Move m = move_of(a);
        switch (m.kind) {
            case Kind::Stock:
                if (!stock_.empty()) {
                    for (int t = 0; t < draw_ && !stock_.empty(); ++t) talon_.push(stock_.pop());
                } else {  // a new pass: the talon turned over, no shuffle
                    while (!talon_.empty()) stock_.push(talon_.pop());
                    // Without a limit only "is the first pass over" matters: the count stops at 2.
                    passes_used_ = passes_ >= 0 ? passes_used_ + 1 : 2;
                }
                return;
            case Kind::TalonF:
                ++found_[suit_of(talon_.pop())];
                hashed_ &= ~WASTE_HASHED;
                return;
            case Kind::TalonP:
                piles_[m.dst].push(talon_.pop());
                hashed_ &= ~(WASTE_HASHED | 1u << m.dst);
                return;
            case Kind::PileF:
                ++found_[suit_of(piles_[m.src].pop())];
                flip(m.src);
                hashed_ &= ~(1u << m.src);
                return;
            case Kind::PileP: {
                hashed_ &= ~(1u << m.src | 1u << m.dst);
                auto& src = piles_[m.src];
                const int k = run_start(m.src, m.dst);
                for (int t = k; t < src.size(); ++t) piles_[m.dst].push(src[t]);
                src.truncate(k);
                flip(m.src);
                return;
            }
            case Kind::FoundP:
                piles_[m.dst].push(card_of(found_[m.src]--, m.src));
                hashed_ &= ~(1u << m.dst);
                return;
        }
    }

    // Automatic step: a face-down card that becomes the last of its pile turns face up.
    void flip(int i) {
        if (down_[i] && down_[i] == piles_[i].size()) --down_[i];
    }

    // ---- reading the state --------------------------------------------------------------------

    int foundation_cards() const override { return found_[0] + found_[1] + found_[2] + found_[3]; }

    void extra_values(std::int64_t* out) const override {
        // where each extra goes, fixed at compile time
        constexpr int X_COUNTER_SCORE = spec.extra("counter_score");
        out[X_COUNTER_SCORE] = -52 + 5 * foundation_cards();
    }

    void observe(float* out) const override {
        for (int i = 0; i < N_PILES; ++i) {
            const auto& pile = piles_[i];
            for (int k = 0; k < pile.size(); ++k) out[pile[k] * NP + (k < down_[i] ? HIDDEN : i)] = 1.0f;
        }
        for (int s = 0; s < 4; ++s)
            for (int r = 0; r < found_[s]; ++r) out[(s * 13 + r) * NP + FOUNDATION] = 1.0f;
        for (int k = 0; k < stock_.size(); ++k) out[stock_[k] * NP + HIDDEN] = 1.0f;
        const int nt = talon_.size();
        for (int k = 0; k < nt; ++k) {
            const int from_top = nt - 1 - k;  // 0: top, 1: second, 2: third, then "below"
            out[talon_[k] * NP + (from_top < FAN ? TALON_TOP + from_top : TALON_BELOW)] = 1.0f;
        }
        // Computed in double and rounded once, as Python's float -> numpy float32.
        float* o = out + O_DOWN;
        for (int i = 0; i < N_PILES; ++i) *o++ = static_cast<float>(down_[i] / 6.0);
        for (int s = 0; s < 4; ++s) *o++ = static_cast<float>(found_[s] / 13.0);
        *o++ = static_cast<float>(stock_.size() / 24.0);
        *o++ = static_cast<float>(talon_.size() / 24.0);
        double left = 1.0;
        if (passes_ >= 0) left = passes_ > 1 ? double(passes_ - passes_used_) / double(passes_ - 1) : 0.0;
        *o = static_cast<float>(left);
        if (known_stock_) {  // the k-th next card turned: (k + 1) / 24
            const int ns = stock_.size();
            for (int k = 0; k < ns; ++k)
                out[O_STOCK_ORDER + stock_[ns - 1 - k]] = static_cast<float>((k + 1) / double(N_STOCK));
        }
    }

    std::vector<int> cards_in_play() const override {
        std::vector<int> cards;
        append_cards(cards, piles_);
        for (int k = stock_.size() - 1; k >= 0; --k) cards.push_back(stock_[k]);
        talon_.append_to(cards);
        for (int s = 0; s < 4; ++s)
            for (int r = 0; r < found_[s]; ++r) cards.push_back(s * 13 + r);
        return cards;
    }

    std::string state_key() const override {
        return key_of(piles_, down_, stock_, talon_, found_, passes_used_);
    }

    // ---- the solver's hooks (solver.hpp) -------------------------------------------------------
    //
    // The stock and the talon as one sequence. Turning moves cards from the stock's back onto
    // the talon, and a new pass pops the talon back onto the stock, so the cards read talon
    // bottom -> top, then stock next-turned -> last never change order under turning: only a
    // talon play takes a card out. A stock/talon position is that sequence and the talon's size.
    int waste_size() const { return stock_.size() + talon_.size(); }
    int waste_card(int i) const {
        return i < talon_.size() ? talon_[i] : stock_[stock_.size() - 1 - (i - talon_.size())];
    }
    // The talon sizes the cycle of turns visits for good once passes are unlimited: after the
    // first new pass the talon holds 0, draw, 2 draw, ... cards and then all of them, again and
    // again. From any talon size, turning reaches each of them (so, with unlimited passes, two
    // such positions reach each other by turning alone).
    bool on_cycle(int nt) const { return nt % draw_ == 0 || nt == waste_size(); }
    // The talon size the solver's key records: with unlimited passes, every size on the cycle
    // reads as the whole talon (positions that differ only there reach each other by turning
    // alone, which changes nothing else, so they are won or lost alike); otherwise the size.
    int keyed_talon_size() const {
        const int nt = talon_.size();
        return passes_ < 0 && on_cycle(nt) ? waste_size() : nt;
    }

    // The position up to what the rules cannot tell apart:
    // * the seven piles as a multiset (sorted): every rule treats the piles alike (any pile takes
    //   the same cards, an empty one a king), so permuting them permutes the moves and nothing else;
    // * no foundation heights: they are the cards found nowhere else, so the rest determines them;
    // * the stock and talon as their one sequence (above) and keyed_talon_size();
    // * no pass counter when passes are unlimited: it then never changes a legal move.
    std::string canonical_key() const override {
        std::array<int, N_PILES> order{0, 1, 2, 3, 4, 5, 6};
        auto less = [this](int x, int y) {
            const auto &a = piles_[x], &b = piles_[y];
            if (down_[x] != down_[y]) return down_[x] < down_[y];
            if (a.n != b.n) return a.n < b.n;
            return std::memcmp(a.cards.data(), b.cards.data(), static_cast<std::size_t>(a.n)) < 0;
        };
        std::sort(order.begin(), order.end(), less);
        std::string key;
        key.reserve(96);
        for (int i : order) {
            key.push_back(static_cast<char>(down_[i]));
            key_put(key, piles_[i]);
        }
        key.push_back(static_cast<char>(waste_size()));
        for (int k = 0; k < waste_size(); ++k) key.push_back(static_cast<char>(waste_card(k)));
        key.push_back(static_cast<char>(keyed_talon_size()));
        if (passes_ >= 0) key_put(key, passes_used_);
        return key;
    }

    // canonical_key() hashed without building it: each pile hashed alone, the seven hashes
    // summed (equal piles, equal hashes: a function of the piles as a multiset), then the sequence,
    // the talon size and the pass counter as the key has them. Equal keys give equal hashes.
    // Each pile's hash and the sequence's are kept until a move changes them (apply() clears
    // their bits in hashed_): a move changes at most two piles, and only a talon play the sequence.
    static std::uint64_t hash_pile(const Stack<PILE_CAP>& p, int down) {
        return hash_stack(p, 0x1000u + static_cast<std::uint64_t>(down));
    }
    std::uint64_t pile_hash(int i) const {
        if (!(hashed_ & 1u << i)) {
            pile_hash_[i] = hash_pile(piles_[i], down_[i]);
            hashed_ |= 1u << i;
        }
        return pile_hash_[i];
    }
    std::uint64_t waste_hash() const {
        if (!(hashed_ & WASTE_HASHED)) {
            const int n = waste_size();
            std::uint64_t h = 0x13198A2E03707344ULL, w = static_cast<std::uint64_t>(n);
            for (int k = 0; k < n; ++k) {
                w = (w << 8) | static_cast<std::uint8_t>(waste_card(k));
                if ((k & 7) == 6) h = hash_mix(h ^ w), w = 0;
            }
            waste_hash_ = hash_mix(h ^ w);
            hashed_ |= WASTE_HASHED;
        }
        return waste_hash_;
    }
    std::uint64_t canonical_hash() const override {
        std::uint64_t h = 0x243F6A8885A308D3ULL;  // the piles' hashes summed: a multiset's
        for (int i = 0; i < N_PILES; ++i) h += hash_mix(pile_hash(i));
        return hash_rest(h);
    }
    // The hash of the piles' sum h with the sequence, the talon size and the pass counter.
    std::uint64_t hash_rest(std::uint64_t h) const {
        h = hash_mix(hash_mix(h) ^ waste_hash());
        return hash_mix(h ^ (static_cast<std::uint64_t>(keyed_talon_size()) << 32) ^
                   static_cast<std::uint64_t>(passes_ >= 0 ? passes_used_ : 0));
    }

    // TWIN SWAPS (with partial moves): two positions that differ only by swapping what lies on
    // two face-up twins (the two cards of one rank and colour, both face up in the tableau: the
    // run on one goes onto the other and back) are won or lost alike. Proof: the replay of
    // solver_moves_pruned() below, started with that pair in T, maps any winning line of one
    // position to a winning line of the other (it never needed T empty at the start), and the
    // swap is its own inverse. Swaps of different pairs touch different cards and commute, so
    // each pair can be put in a fixed order independently: the card lying on the twin of the
    // lower suit is the smaller (no card counting smallest). The solver's hash, with its
    // dominances on, hashes the position so ordered (lonelybot keys positions without their
    // face-up arrangement for the same reason). Sound for the search's table, which expands the
    // first position met of each class: from any position of a winnable class the replay gives a
    // line of offered moves no longer than the class's shortest winning line (the macro move
    // puts a card up in one move where that line spent one too), so its first move leads to a
    // class with a shorter one, and by induction no win is lost. (A bare partial move, offered by
    // the first version, needed two: 8S from 9D onto 9H only swaps what lies on the red nines,
    // and seed 165 of draw 3 was "proven" lost through it.)
    std::uint64_t solver_hash() const override {
        if (!prunes_solver_moves()) return canonical_hash();
        std::array<std::int8_t, N_KINDS> on;  // the card lying directly on a face-up card, or -1
        std::array<bool, N_KINDS> up{};
        on.fill(-1);
        for (int i = 0; i < N_PILES; ++i) {
            const auto& p = piles_[i];
            for (int k = down_[i]; k < p.size(); ++k) {
                up[p[k]] = true;
                if (k + 1 < p.size()) on[p[k]] = static_cast<std::int8_t>(p[k + 1]);
            }
        }
        bool swapped = false;
        for (int c = 0; c < N_KINDS; ++c) {
            const int twin = card_of(rank_of(c), 3 - suit_of(c));  // C <-> S, D <-> H
            if (suit_of(c) < suit_of(twin) && up[c] && up[twin] && on[c] > on[twin]) {
                std::swap(on[c], on[twin]);
                swapped = true;
            }
        }
        if (!swapped) return canonical_hash();
        std::uint64_t h = 0x243F6A8885A308D3ULL;
        for (int i = 0; i < N_PILES; ++i) {
            const auto& p = piles_[i];
            Stack<PILE_CAP> q;
            for (int k = 0; k < p.size() && k <= down_[i]; ++k) q.push(p[k]);  // face down, then the first face up
            if (q.size() > down_[i])
                for (int c = q.back(); on[c] >= 0; c = on[c]) q.push(on[c]);
            h += hash_mix(hash_pile(q, down_[i]));
        }
        return hash_rest(h);
    }

    // A card c of rank r that fits its foundation and on which no card could ever be placed in
    // the tableau: r <= 2 (only an ace fits a two, and an ace never goes on a pile), or both
    // foundations of the other colour hold r - 1 (the only cards that fit c are there, and
    // foundation cards never leave).
    bool dead_end_card(int c) const {
        if (!to_foundation(c)) return false;
        const int r = rank_of(c);
        const int other0 = is_red(c) ? 0 : 1, other1 = is_red(c) ? 3 : 2;  // C S black, D H red
        // worrying_back: foundation cards may come back, so only r <= 2 (the proof below holds:
        // no card is ever put on c, and an ace never comes back onto a pile)
        return r <= 2 || (!worrying_ && found_[other0] >= r - 1 && found_[other1] >= r - 1);
    }

    // SAFE MOVE 1: a pile's last card c that is a dead_end_card() goes up. From then on c only
    // ever sits at the end of some pile (nothing can be put on it), so any winning line L from
    // here maps to one that plays c first: drop c's own moves from L (a move of c alone, or c to
    // the foundation) and let each move of a run ending in c move the same run less c (same head
    // card, same target, so just as legal, partial_moves or not). Every other move of L sees the
    // same cards it saw (the card under c may turn up sooner: only a move of c could take a card
    // from that pile meanwhile), and c's suit needs c before its next card, so L's foundation
    // moves stay legal.
    // SAFE MOVE 2, draw 1 only: the talon's top card c, a dead_end_card(), goes up. Map a
    // winning line L as above, and besides: drop the turn that takes c from the stock to the
    // talon (with c gone the stock is L's less c, with the same card next, so every other turn
    // moves the same card), drop c's talon plays (to a pile: c then sits at a pile's end and is
    // handled as above; a king onto an empty pile leaves that pile empty, where nothing could
    // have gone onto c anyway), and drop a new pass of a talon that holds c alone (the stock
    // then gets c alone in L, and its turn is dropped too). Every other talon play shows the
    // same top card (c was never above it). The new line uses no more passes than L, so each
    // new pass of L stays legal. Not with draw 3: taking c out shifts which cards later turns
    // of three show.
    int safe_move() const override {
        for (int i = 0; i < N_PILES; ++i)
            if (!piles_[i].empty() && dead_end_card(piles_[i].back())) return PILE_F0 + i;
        if (draw_ == 1 && !talon_.empty() && dead_end_card(talon_.back())) return TALON_F;
        return -1;
    }

    // A DEAD POSITION: some tableau card can never move again, so it never reaches its
    // foundation. The stuck set S is the largest set of pile cards, none an ace or a king and none
    // whose foundation holds the card below it already, in which every card x has
    //  (1) the card below it in suit (its foundation's next) in S or covered,
    //  (2) both cards it could be built on (one rank higher, the other colour) covered, and
    //  (3) under it in its pile nothing that could carry it: no card, a face-down card, a card
    //      it does not build on (one rank higher, the other colour), or a card of S,
    // where covered means on a foundation (foundation cards never come back) or in a pile under
    // a card of S. Suppose some card of S leaves its place; take the first move that moves one,
    // and the lowest card x of S it moves. If x heads the moved cards: to its foundation, the
    // card below it in suit must be up, but it is in S (unmoved, so not up) or covered (under a
    // card of S, unmoved); onto a pile's end, both targets are still covered (under unmoved cards
    // of S, or up); into an empty pile, x is no king. If a card lower in x's pile heads them, the
    // card w just under x moves too, as part of a face-up run, so w is face up, x builds on it,
    // and w is not in S (x is the lowest moved), against (3). So no card of S ever moves, and the
    // game cannot be won. A card stuck on its own targets and predecessor is the common case.
    bool dead() const override {
        if (worrying_) return false;  // the proof needs foundation cards that never come back
        std::array<std::int8_t, N_KINDS> pile, at{};
        pile.fill(-1);
        for (int i = 0; i < N_PILES; ++i)
            for (int k = 0; k < piles_[i].size(); ++k) {
                pile[piles_[i][k]] = static_cast<std::int8_t>(i);
                at[piles_[i][k]] = static_cast<std::int8_t>(k);
            }
        std::array<bool, N_KINDS> in{};
        for (int c = 0; c < N_KINDS; ++c)
            in[c] = pile[c] >= 0 && rank_of(c) != ACE && rank_of(c) != KING && found_[suit_of(c)] < rank_of(c) - 1;
        auto covered = [&](int c) {
            if (rank_of(c) <= found_[suit_of(c)]) return true;
            if (pile[c] < 0) return false;
            const auto& p = piles_[pile[c]];
            for (int k = at[c] + 1; k < p.size(); ++k)
                if (in[p[k]]) return true;
            return false;
        };
        bool any = true;
        for (bool changed = true; changed && any;) {
            changed = any = false;
            for (int c = 0; c < N_KINDS; ++c) {
                if (!in[c]) continue;
                const int below = c - 1;  // rank - 1, same suit (no ace is in S)
                const int k = at[c], i = pile[c];
                const int w = k > 0 ? piles_[i][k - 1] : -1;  // the card just under c
                bool stuck = in[below] || covered(below);
                stuck = stuck && (w < 0 || k - 1 < down_[i] || !alternate_down(w, c) || in[w]);
                for (int t = 0; t < 4 && stuck; ++t)
                    if (is_red(card_of(ACE, t)) != is_red(c)) stuck = covered(card_of(rank_of(c) + 1, t));
                if (stuck) {
                    any = true;
                } else {
                    in[c] = false;
                    changed = true;
                }
            }
        }
        return any;
    }

    // A SURE WIN: no face-down card in the tableau, and at most one card in the stock and talon
    // together. Each pile is then a face-up run of alternating colours, each card one rank below
    // the card under it. Take the lowest rank r among the cards not on a foundation, and a card c
    // of that rank: every card of c's suit below r is on its foundation (a lower one elsewhere
    // would have a lower rank), so c fits its foundation; the cards above c in its pile are of
    // lower rank, so there are none, and c is a pile's last card, or the one card of the stock and
    // talon (on the talon, or shown by one turn). So c goes up, and by induction every card does.
    bool sure_win() const override {
        if (waste_size() > 1) return false;
        for (int i = 0; i < N_PILES; ++i)
            if (down_[i]) return false;
        return true;
    }

    int face_down_cards() const override {
        int n = 0;
        for (int i = 0; i < N_PILES; ++i) n += down_[i];
        return n;
    }

    // The beam search's layers (beam.hpp): the cards turned from the stock in this pass, passes
    // first. Within a pass the stock only shrinks, and a new pass starts a new one (25 a pass, more
    // than the stock holds), so no move lowers the layer. None with unlimited passes, whose pass
    // counter stops at 2 (the positions stay finite).
    int beam_layer() const override { return passes_ < 0 ? -1 : (passes_used_ - 1) * 25 + (24 - stock_.size()); }

    // Among positions that have turned as many stock cards: fewest cards left lying in the talon
    // (each must later find a place, from the top down), then more foundation cards, fewer
    // face-down cards. Ordering only. On one-pass Klondike's winnable deals of seeds 0-499 (116),
    // widths 30, 300 and 3,000 win 58, 80 and 101 (at about 4,000, 35,000 and 240,000 nodes;
    // benchmarks/bench_beam_reach.py). The weights were chosen on seeds 0-199's 38 at width 300
    // with scratch builds (2026-12-07): 24 won with the talon's weight 10, 18 with 0.25, 16 with none.
    double beam_score() const override {
        return 2.0 * foundation_cards() - face_down_cards() - 10.0 * talon_.size();
    }

    // Ordering only: first moves that turn up a face-down card (the deeper the pile, the
    // sooner), then those that empty a pile or bring a talon card into play, then the rest,
    // turning the stock, then moving a run that turns nothing up (shuffling the tableau).
    int pile_priority(int i, int k) const {  // a run from pile i, headed by its k-th card
        if (k == down_[i] && k > 0) return 10 + down_[i];
        return k == 0 ? 5 : 0;
    }
    int pile_f_priority(int i) const { return down_[i] > 0 && down_[i] == piles_[i].size() - 1 ? 10 + down_[i] : 3; }
    int move_priority(int a) const override {
        const Move m = move_of(a);
        switch (m.kind) {
            case Kind::PileP: return pile_priority(m.src, run_start(m.src, m.dst));
            case Kind::PileF: return pile_f_priority(m.src);
            case Kind::TalonP: return 4;
            case Kind::TalonF: return 4;
            case Kind::Stock: return 1;
            case Kind::FoundP: return 0;
        }
        return 0;
    }

    // STOCK MACRO MOVES. The solver's moves are the tableau's own (pile -> foundation, pile ->
    // pile) and, instead of the bare "stock" action, one move per talon play reachable by
    // turning: "turn k times (k >= 0), then play the talon's top card to its foundation or to
    // pile j". Every winning line L is a sequence of these:
    // * a turn (or a new pass) reads and writes only the stock, the talon and the pass counter,
    //   which no tableau move reads or writes; so a turn and the tableau move after it may be
    //   swapped (both stay legal, the position after both is the same). Moving every turn later
    //   past tableau moves, each turn ends up just before the next talon play, and the turns
    //   after L's last talon play are dropped (the position is won already when L ends: winning
    //   looks at the foundations only). L is then tableau moves and blocks "turn k times, play
    //   the talon top";
    // * the turn count is bounded: turning from talon size t visits talon sizes (the sequence
    //   never changes, above) t, t + draw, ..., all, then 0, draw, ..., all (each new pass), and
    //   again. When a block meets a talon size it met before, with the same cards, the turns in
    //   between can be dropped: the stock and talon are the same, and the pass counter no larger,
    //   and a smaller counter makes every new pass legal that was legal before (with unlimited
    //   passes it changes nothing). So k stops at the first repeated talon size: k <= 24 + 2.
    // Limited passes are handled by the same walk: a new pass is offered only while passes are
    // left (can_pass()), exactly as apply() would allow it.
    void solver_moves(std::vector<SolverMove>& out) const override {
        moves([&out](const int* a, int n, int prio) { out.push_back({{a, a + n}, prio}); }, false);
    }

    // THE PARTIAL-MOVE DOMINANCE (Solvitaire's, made stronger): a pile -> pile move of a run that
    // sits on a face-up card w (a partial move) is offered only when w fits its foundation, and
    // then only together with w's move there, as one macro move. Such a run (headed by h, one
    // rank below w, the other colour) can only go onto w's TWIN y (the one other card of w's rank
    // and colour) showing at a pile's end: every partial move is a twin-to-twin move. Take any
    // winning line L and replay it while keeping a set T of twin pairs whose "card lying
    // directly on it" is swapped between the two lines (both twins face up in the tableau; swaps
    // of different pairs touch different cards, so they commute). Each move of L becomes at most
    // one move of the new line:
    // * a twin-to-twin move w -> y: pair in T: the new line already has the run on y and w bare
    //   (drop the move, and the pair from T); else drop it and put the pair in T (the run stays
    //   on w, y stays bare);
    // * a move onto a card z (a run whose head lay on a face-down card or on nothing, or the
    //   talon's card): onto z's twin instead when z's pair is in T (there the twin is the bare
    //   one, and takes the same cards); what it uncovers is the same in both lines (a twin in T is
    //   face up, so never the card under such a run), so it flips the same card;
    // * a card c to its foundation, c's pair in T: c is bare in L, so its twin is bare in the new
    //   line and c carries the twin's run there (if any): the macro move "that run onto the twin,
    //   then c up" (c fits its foundation, as in L); the pair leaves T;
    // * every other move (turns, talon plays, runs without a twin) is played as it is.
    // The piles then differ only by the swaps of T, and L's last move leaves every card on a
    // foundation, so T is empty and the new line wins too, with only offered moves and no more
    // moves than L (a macro move counting one). Every move of it changes more than what lies on
    // twins (a card goes up, leaves the talon, or a pile's face-down or bottom card changes),
    // which the twin swaps of solver_hash() rely on. Not used without partial moves (no move is
    // partial then).
    // With worrying_back the proof does not hold (prunes_solver_moves): the solver's moves, unpruned.
    void solver_moves_pruned(std::vector<SolverMove>& out) const override {
        if (!prunes_solver_moves()) return solver_moves(out);
        pruned_moves([&out](const int* a, int n, int prio) { out.push_back({{a, a + n}, prio}); });
    }
    // The same, ranked as planner_moves_flat() ranks (a move that puts a card up first).
    void solver_moves_pruned_flat(MoveList& out) const override {
        if (!prunes_solver_moves())
            return moves([&out](const int* a, int n, int prio) { out.add(a, n, prio + (puts_up(a[n - 1]) ? 100 : 0)); },
                         false);
        pruned_moves([&out](const int* a, int n, int prio) { out.add(a, n, prio + (puts_up(a[n - 1]) ? 100 : 0)); });
    }
    template <class Add>
    void pruned_moves(Add&& add) const {
        moves(
            [this, &add](const int* a, int n, int prio) {
                if (n != 1 || *a < PILE_P0 || *a >= FOUND_P0) {  // not a pile -> pile move
                    add(a, n, prio);
                    return;
                }
                const int i = move_of(*a).src, k = run_start(i, move_of(*a).dst);
                if (k == 0 || k == down_[i]) {  // the whole face-up run: a card turns up, or the pile empties
                    add(a, n, prio);
                } else if (useful_pile_move(i, k)) {  // partial, and the card it uncovers goes up
                    const int line[2] = {*a, PILE_F0 + i};
                    add(line, 2, prio);
                }
            },
            false);
    }
    static bool puts_up(int action) { return action == TALON_F || (action >= PILE_F0 && action < TALON_P0); }

    // Not with worrying_back: the proof below does not cover foundation cards coming back.
    bool prunes_solver_moves() const override { return partial_ && !worrying_; }

    // The planner's moves (core.hpp, not safe): the solver's, less the pile -> pile moves that
    // neither turn up a card, nor empty a pile, nor uncover a card that goes straight to its
    // foundation (the dominance Solvitaire and lonelybot prune by: shuffling runs between piles
    // is seldom what wins). Ranked (core.hpp): a move that puts a card up gets 100 more, so it
    // comes first, as in the solver's ordering.
    void planner_moves(std::vector<SolverMove>& out) const override {
        MoveList flat;
        planner_moves_flat(flat);
        for (int i = 0; i < flat.size(); ++i)
            out.push_back({{flat.acts.begin() + flat.start[i], flat.acts.begin() + flat.start[i + 1]}, flat.prio[i]});
    }
    void planner_moves_flat(MoveList& out) const override {
        moves(
            [&out](const int* a, int n, int prio) { out.add(a, n, prio + (puts_up(a[n - 1]) ? 100 : 0)); },
            true);
    }
    bool planner_moves_ranked() const override { return true; }

    bool useful_pile_move(int i, int k) const {  // a run from pile i, headed by its k-th card
        if (k == 0 || k == down_[i]) return true;  // empties the pile, or turns a card up
        return to_foundation(piles_[i][k - 1]);
    }

    // Every solver move (pruned: the planner's) to add(actions, count, priority).
    template <class Add>
    void moves(Add&& add, bool pruned) const {
        for (int i = 0; i < N_PILES; ++i)  // pile -> foundation (is_legal's rule, move_priority's rank)
            if (!piles_[i].empty() && to_foundation(piles_[i].back())) {
                const int a = PILE_F0 + i;
                add(&a, 1, pile_f_priority(i));
            }
        std::array<std::int8_t, FOUND_P0> runs;
        pile_runs(runs.data());
        for (int i = 0, a = PILE_P0; i < N_PILES; ++i)  // pile -> pile, i-major as the table
            for (int t = 0; t < N_PILES - 1; ++t, ++a) {
                const int k = runs[a];
                if (k >= 0 && (!pruned || useful_pile_move(i, k))) add(&a, 1, pile_priority(i, k));
            }
        if (worrying_)  // a foundation card back onto a pile: tried last
            for (int a = FOUND_P0; a < N_ACTIONS; ++a)
                if (back(move_of(a).src, move_of(a).dst)) add(&a, 1, 0);
        // the piles each card could go to (to_pile asked once a pile, for the cards that fit it)
        std::array<std::uint8_t, N_KINDS> fits{};
        for (int j = 0; j < N_PILES; ++j) {
            const int r = piles_[j].empty() ? KING : rank_of(piles_[j].back()) - 1;
            if (r < ACE) continue;
            for (const int suit : suits_onto(j))
                if (to_pile(card_of(r, suit), j)) fits[card_of(r, suit)] |= static_cast<std::uint8_t>(1u << j);
        }
        const int n = waste_size();
        int nt = talon_.size(), used = passes_used_;
        std::array<bool, 25> met{};
        std::array<int, 32> line;  // k turns (k <= 24 + 2, see above), then the play
        int k = 0;
        for (;;) {
            met[static_cast<std::size_t>(nt)] = true;
            if (nt > 0) {
                const int t = waste_card(nt - 1);
                const int prio = k == 0 ? 4 : 2;
                if (to_foundation(t)) {
                    line[static_cast<std::size_t>(k)] = TALON_F;
                    add(line.data(), k + 1, prio);
                }
                for (unsigned b = fits[t]; b; b &= b - 1) {
                    line[static_cast<std::size_t>(k)] = TALON_P0 + __builtin_ctz(b);
                    add(line.data(), k + 1, prio);
                }
            }
            if (nt < n) {
                nt = std::min(n, nt + draw_);
            } else if (nt > 0 && (passes_ < 0 || used < passes_)) {  // can_pass()
                nt = 0;
                ++used;
            } else {
                break;
            }
            if (met[static_cast<std::size_t>(nt)]) break;
            line[static_cast<std::size_t>(k++)] = STOCK;
        }
    }


private:
    // configuration
    int draw_;
    int passes_;  // -1: without limit
    bool partial_;
    bool known_stock_;  // stock="known": the stock's order is observed (stock_order)
    bool worrying_;     // worrying_back: a foundation's top card may come back onto a pile
    // position (klondike.py STATE)
    std::array<Stack<PILE_CAP>, N_PILES> piles_{};
    std::array<int, N_PILES> down_{};
    Stack<24> stock_;  // back() is the next card turned (Python's stock[-1])
    Stack<24> talon_;
    std::array<int, 4> found_{};
    int passes_used_ = 1;
    // canonical_hash()'s cache: bit i set, pile_hash_[i] holds pile i's hash; WASTE_HASHED set,
    // waste_hash_ holds the stock and talon sequence's (copied with the position by assign()).
    static constexpr unsigned WASTE_HASHED = 1u << N_PILES;
    mutable std::array<std::uint64_t, N_PILES> pile_hash_{};
    mutable std::uint64_t waste_hash_ = 0;
    mutable unsigned hashed_ = 0;
};

// klondike.Klondike.OPTIONS: draw (1 or 3), passes (-1 for None: without limit), partial_moves,
// stock ("hidden" or "known"), worrying_back.
[[maybe_unused]] const bool registered = register_game(spec, [](const Options& o) -> std::unique_ptr<Game> {
    return std::make_unique<Klondike>(static_cast<int>(o["draw"]), static_cast<int>(o["passes"]),
                                      o["partial_moves"] != 0, o["stock"] == spec.choice("stock", "known"),
                                      o["worrying_back"] != 0);
});

}  // namespace

}  // namespace pg

// Nestor: the native twin of patience_gym/games/nestor.py (docs/rules.md section 2).
//
// Same action table and observation as the Python module (their ids, offsets and sizes come from
// it, through generated/nestor_spec.hpp), and the same silent choices, which its docstring
// documents; the comments here only say where C++ differs in form. Texts are Python's alone.
#include <algorithm>
#include <cstring>
#include <string>

#include "core.hpp"
#include "nestor_spec.hpp"

namespace pg {
namespace {

constexpr const auto& spec = generated::nestor;

constexpr int N_COLS = 8, N_ROWS = 6, N_RESERVE = 4;
constexpr int N_PLACES = N_COLS + N_RESERVE;  // places 0-7 the columns' last cards, 8-11 the reserve
constexpr int N_PAIRS = N_PLACES * (N_PLACES - 1) / 2;  // 66
// Action ids: the pairs from 0, then the turn (nestor.TABLE).
constexpr int TURN = spec.first("TURN"), N_ACTIONS = spec.n_actions();
static_assert(spec.first("PAIR") == 0 && spec.count("PAIR") == N_PAIRS);
// Observation places per card (nestor.PLACES, by their names) and the segments.
constexpr int NP = spec.n_places(), RES_UP = spec.place("reserve 0, face up");
constexpr int PAIRED = spec.place("paired off");
constexpr int HIDDEN = spec.place("reserve, face down (not visible)");
constexpr int O_DEPTH = spec.offset("depth"), O_TURNED = spec.offset("reserve_turned");
constexpr int OBS_SIZE = spec.obs_size();
constexpr int NONE = -1;  // Python's None: no card (an empty column, a paired-off reserve card)

struct Pair {
    int p, q;
};

// The table's pair moves, p < q ordered p-major as itertools.combinations(range(12), 2).
struct PairTable {
    std::array<Pair, N_PAIRS> pair_of{};                      // id -> places
    std::array<std::array<int, N_PLACES>, N_PLACES> id_of{};  // places (p < q) -> id
    constexpr PairTable() {
        int a = 0;
        for (int p = 0; p < N_PLACES; ++p)
            for (int q = p + 1; q < N_PLACES; ++q) {
                pair_of[a] = {p, q};
                id_of[p][q] = a++;
            }
    }
};
constexpr PairTable PAIRS{};

class Nestor final : public Port<Nestor, spec> {
public:
    explicit Nestor(bool open_reserve) : open_reserve_(open_reserve) {}


    // nestor.rectified_deal: 8 columns of 6 with no rank twice in a column; the last 4 cards are
    // the reserve. Python's deque is a ring buffer here: rotate(-1) moves the front card to the
    // back, popleft takes the front.
    void deal(const std::vector<int>& pack) override {
        std::array<std::int8_t, N_KINDS> ring{};
        for (int k = 0; k < N_KINDS; ++k) ring[k] = static_cast<std::int8_t>(pack[k]);
        int head = 0, count = N_KINDS;
        for (auto& col : cols_) col.clear();
        for (int row = 0; row < N_ROWS; ++row) {
            for (auto& col : cols_) {
                std::array<bool, KING + 1> ranks{};
                for (int k = 0; k < col.size(); ++k) ranks[rank_of(col[k])] = true;
                // After a full turn of the pack with no fit, the front is the original next card.
                for (int t = 0; t < count && ranks[rank_of(ring[head])]; ++t) {
                    ring[(head + count) % N_KINDS] = ring[head];  // to the bottom of the pack
                    head = (head + 1) % N_KINDS;
                }
                col.push(ring[head]);
                head = (head + 1) % N_KINDS;
                --count;
            }
        }
        for (int k = 0; k < N_RESERVE; ++k) reserve_[k] = ring[(head + k) % N_KINDS];
        turned_ = open_reserve_ ? N_RESERVE : 0;
        discard_.clear();
    }

    // ---- the rules (nestor.py: card_at, _pairable, _pairs, _may_turn) --------------------------

    // The available card at place p, or NONE.
    int card_at(int p) const {
        if (p < N_COLS) return cols_[p].empty() ? NONE : cols_[p].back();
        const int k = p - N_COLS;
        return k < turned_ ? reserve_[k] : NONE;
    }

    // EQUAL_RANK: two cards of one rank, any suits.
    static bool can_pair(int a, int b) { return rank_of(a) == rank_of(b); }

    // Two available cards (NONE: no card) that pair.
    static bool pairable_cards(int a, int b) { return a != NONE && b != NONE && can_pair(a, b); }

    bool pairable(int p, int q) const { return pairable_cards(card_at(p), card_at(q)); }

    // True when some pair can be made (what _pairs() is asked for by the turn rule).
    bool any_pair() const {
        for (const Pair& pq : PAIRS.pair_of)
            if (pairable(pq.p, pq.q)) return true;
        return false;
    }

    // A reserve card is left to turn, and no pair can be made.
    bool may_turn(bool pair_on_offer) const { return turned_ < N_RESERVE && !pair_on_offer; }

    bool is_legal(int a) const override {
        if (a == TURN) return may_turn(any_pair());
        const Pair& pq = PAIRS.pair_of[a];
        return pairable(pq.p, pq.q);
    }

    // The same predicates, each place's card read once, each pair asked once and the turn rule
    // fed from the pairs found.
    void legal_mask(std::uint8_t* out) const override {
        std::array<int, N_PLACES> card{};
        for (int p = 0; p < N_PLACES; ++p) card[p] = card_at(p);
        bool found = false;
        for (int a = 0; a < N_PAIRS; ++a) {
            out[a] = pairable_cards(card[PAIRS.pair_of[a].p], card[PAIRS.pair_of[a].q]) ? 1 : 0;
            found = found || out[a];
        }
        out[TURN] = may_turn(found) ? 1 : 0;
    }

    void apply(int a) override {
        if (a == TURN) {
            ++turned_;
            return;
        }
        for (const int place : {PAIRS.pair_of[a].p, PAIRS.pair_of[a].q}) {
            if (place < N_COLS) {
                discard_.push(cols_[place].pop());
            } else {
                discard_.push(reserve_[place - N_COLS]);
                reserve_[place - N_COLS] = NONE;
            }
        }
    }

    // ---- reading the state --------------------------------------------------------------------

    int foundation_cards() const override { return discard_.size(); }

    void observe(float* out) const override {
        for (int i = 0; i < N_COLS; ++i) {
            const auto& col = cols_[i];
            const int n = col.size();
            for (int k = 0; k < n; ++k) {
                out[col[k] * NP + i] = 1.0f;
                out[O_DEPTH + col[k]] = static_cast<float>((n - 1 - k) / 5.0);  // nestor._DEPTHS
            }
        }
        for (int k = 0; k < N_RESERVE; ++k) {
            const int c = reserve_[k];
            if (c != NONE) out[c * NP + (k < turned_ ? RES_UP + k : HIDDEN)] = 1.0f;
        }
        for (int k = 0; k < discard_.size(); ++k) out[discard_[k] * NP + PAIRED] = 1.0f;
        out[O_TURNED] = static_cast<float>(turned_ / static_cast<double>(N_RESERVE));
    }

    // Like light_and_shade.cpp's in form: each game lists its own places (columns, a reserve with
    // gaps, the discard), which only the order of the calls has in common.
    std::vector<int> cards_in_play() const override {
        std::vector<int> cards;
        append_cards(cards, cols_);
        for (int c : reserve_)
            if (c != NONE) cards.push_back(c);
        discard_.append_to(cards);
        return cards;
    }

    std::string state_key() const override {
        return key_of(cols_, reserve_, turned_, discard_);
    }

    // ---- the solver's hooks (solver.hpp) -------------------------------------------------------

    // The position up to what the rules cannot tell apart:
    // * the columns as a multiset (sorted): columns only give cards, and any two available cards
    //   pair whatever their places, so permuting columns permutes the moves and nothing else;
    // * the turned reserve cards still unpaired as a set (sorted): they are all available alike;
    //   the cards still face down keep their order (it decides which turns up next);
    // * not the discard pile, nor the order it was made in: it is the cards found nowhere else.
    std::string canonical_key() const override {
        std::array<int, N_COLS> order{0, 1, 2, 3, 4, 5, 6, 7};
        std::sort(order.begin(), order.end(), [this](int x, int y) {
            const auto &a = cols_[x], &b = cols_[y];
            if (a.n != b.n) return a.n < b.n;
            return std::memcmp(a.cards.data(), b.cards.data(), static_cast<std::size_t>(a.n)) < 0;
        });
        std::string key;
        key.reserve(72);
        for (int i : order) key_put(key, cols_[i]);
        std::array<int, N_RESERVE> up{};
        int n_up = 0;
        for (int k = 0; k < turned_; ++k)
            if (reserve_[k] != NONE) up[n_up++] = reserve_[k];
        std::sort(up.begin(), up.begin() + n_up);
        key.push_back(static_cast<char>(turned_));
        for (int k = 0; k < n_up; ++k) key.push_back(static_cast<char>(up[k]));
        key.push_back(static_cast<char>(-2));  // separates the turned set from the hidden cards
        for (int k = turned_; k < N_RESERVE; ++k) key.push_back(static_cast<char>(reserve_[k]));
        return key;
    }

    // Pair two cards of a rank when every card of that rank still in play is available (two or
    // four of them). Safe: cards only ever leave, so they all stay available until paired, and
    // any winning line L pairs them off at some moments; pairing two of them first and pairing
    // the other two (if any) at the first moment L pairs cards of this rank (skipping L's
    // second such pair) keeps every other move of L legal: other pairs see the same cards (only
    // sooner uncovered ones, in columns where L never takes a card before these leave — none
    // lie below them), and a reserve turn, legal in L only while no pair can be made, never
    // falls while L still holds two available cards of this rank, i.e. before L's last pairing
    // of the rank; after it the two positions are the same.
    int safe_move() const override {
        std::array<int, KING + 1> in_play{}, avail{};
        std::array<int, KING + 1> first{}, second{};
        for (int p = 0; p < N_COLS; ++p)
            for (int k = 0; k < cols_[p].size(); ++k) ++in_play[rank_of(cols_[p][k])];
        for (int c : reserve_)
            if (c != NONE) ++in_play[rank_of(c)];
        for (int p = 0; p < N_PLACES; ++p) {
            const int c = card_at(p);
            if (c == NONE) continue;
            const int r = rank_of(c);
            if (avail[r] == 0) first[r] = p;
            else if (avail[r] == 1) second[r] = p;
            ++avail[r];
        }
        for (int r = ACE; r <= KING; ++r)
            if (avail[r] >= 2 && avail[r] == in_play[r]) return PAIRS.id_of[first[r]][second[r]];
        return -1;
    }


private:
    // configuration
    bool open_reserve_;
    // position (nestor.py STATE)
    std::array<Stack<N_ROWS>, N_COLS> cols_{};  // dealt 6 deep, cards only ever leave
    std::array<int, N_RESERVE> reserve_{};      // NONE once paired off
    int turned_ = 0;
    Stack<N_KINDS> discard_;  // cards paired off, in the order they went
};

// nestor.Nestor.OPTIONS: reserve ("strict" or "open").
[[maybe_unused]] const bool registered = register_game(spec, [](const Options& o) -> std::unique_ptr<Game> {
    return std::make_unique<Nestor>(o["reserve"] == spec.choice("reserve", "open"));
});

}  // namespace

}  // namespace pg

// The "Louis" Patience (Cadogan deal) and St. Louis (Dick deal): the native twin of
// patience_gym/games/louis.py (docs/rules.md section 4). Two packs.
//
// Same action table and observation as the Python module (their ids, offsets and sizes come from
// it, through generated/louis_spec.hpp), and the same silent choices, which its docstring
// documents; the comments here only say where C++ differs in form. Texts are Python's alone.
#include <algorithm>
#include <cstring>
#include <optional>
#include <string>

#include "core.hpp"
#include "louis_spec.hpp"

namespace pg {
namespace {

constexpr const auto& spec = generated::louis;

constexpr int N_PACKETS = 12;
constexpr int TURNED = N_PACKETS;  // the source index of the turned card
constexpr int N_REDEALS = 2;
constexpr int N_DEALT = 96;  // two packs less the eight foundation cards
// Gathering order for a re-deal: g h i k l m a b c d e f (packet g is dealt first).
constexpr int GATHER[N_PACKETS] = {6, 7, 8, 9, 10, 11, 0, 1, 2, 3, 4, 5};

// Action ids: the first of each kind in louis.TABLE (up and down: the 12 packets, then the turned card).
constexpr int UP0 = spec.first("UP"), DOWN0 = spec.first("DOWN"), DEAL = spec.first("DEAL");
constexpr int MARRY0 = spec.first("MARRY"), REDEAL = spec.first("REDEAL");
constexpr int N_ACTIONS = spec.n_actions();
static_assert(spec.count("UP") == N_PACKETS + 1 && spec.count("MARRY") == N_PACKETS * (N_PACKETS - 1));

// Phases (louis.py: CADOGAN_DEAL, DICK_FIRST, PLAY); extra_info reports the index into
// _PHASE_NAMES (EXTRA_TEXTS in patience_gym/native.py turns it back into the text).
constexpr int CADOGAN_DEAL = 0, DICK_FIRST = 1, PLAY = 2;

// Observation offsets (louis.Louis.LAYOUT).
constexpr int O_TOP = spec.offset("packet_top"), O_CARDS = spec.offset("packet_cards");
constexpr int O_DEPTH = spec.offset("packet_depth");
constexpr int O_LOWER = spec.offset("packet_depth_lower"), O_AVAIL = spec.offset("available");
constexpr int O_BLOCKED = spec.offset("blocked");
constexpr int O_TURNED = spec.offset("turned"), O_POS = spec.offset("next_position");
constexpr int O_FOUND = spec.offset("foundation");
constexpr int O_PACK = spec.offset("pack_size"), O_PHASE = spec.offset("phase");
constexpr int O_CIRCLE = spec.offset("circle");
constexpr int O_REDEALS = spec.offset("redeals_left");
// recall=True appends the re-dealt pack's rows (pile_rows.PACK_SEGMENTS); without it the layout ends there.
constexpr int O_PACK_CARDS = spec.offset("pack_cards"), O_PACK_DEPTH = spec.offset("pack_depth");
constexpr int O_PACK_LOWER = spec.offset("pack_depth_lower");
static_assert(spec.size("packet_top") == N_PACKETS * N_KINDS && spec.size("phase") == 3);

enum class Kind { Up, Down, Deal, Marry, Redeal };
using Move = pg::Move<Kind>;

// The table: sources 0..12 to each foundation, the deal, marriages p-major (p != q), re-deal.
constexpr Move move_of(int a) {
    if (a < DOWN0) return {Kind::Up, a - UP0, -1};
    if (a < DEAL) return {Kind::Down, a - DOWN0, -1};
    if (a == DEAL) return {Kind::Deal, -1, -1};
    if (a == REDEAL) return {Kind::Redeal, -1, -1};
    const int k = a - MARRY0, p = k / (N_PACKETS - 1), r = k % (N_PACKETS - 1);
    return {Kind::Marry, p, r < p ? r : r + 1};
}

// The action id of "packet p -> packet q" (p != q).
constexpr int marry_id(int p, int q) { return MARRY0 + (N_PACKETS - 1) * p + (q < p ? q : q - 1); }

// vocabulary.SAME_SUIT_EITHER: c may be married onto base (same suit, one rank up or down).
constexpr bool same_suit_either(int base, int c) {
    return suit_of(base) == suit_of(c) && (rank_of(c) == rank_of(base) + 1 || rank_of(c) == rank_of(base) - 1);
}

class Louis final : public Port<Louis, spec> {
public:
    Louis(bool dick, bool recall) : dick_(dick), recall_(recall) {}
    int obs_size() const override { return recall_ ? spec.obs_size() : O_PACK_CARDS; }


    // ---- dealing --------------------------------------------------------------------------------

    void deal(const std::vector<int>& pack) override {
        // take_out: the first copy of each ace and each king leaves the pack (distinct cards, so
        // the order in which they are removed does not matter); the other 96 are dealt in order.
        std::array<bool, N_KINDS> taken{};
        Stack<N_DEALT> order;
        for (int c : pack) {
            const bool base = rank_of(c) == ACE || rank_of(c) == KING;
            if (base && !taken[c]) {
                taken[c] = true;
                continue;
            }
            order.push(c);
        }
        found_.fill(1);  // found_[s]: cards on suit s's ace foundation; found_[4 + s]: its king one
        redeals_left_ = N_REDEALS;
        start_deal(order);
    }

    // Deal `order` (first card first) onto the empty alphabet, as the option says.
    void start_deal(const Stack<N_DEALT>& order) {
        for (auto& p : packets_) p.clear();
        stock_.clear();
        for (int k = order.size() - 1; k >= 0; --k) stock_.push(order[k]);  // back() is turned next
        fresh_.fill(0);
        pos_ = 0;
        circle_ = -1;  // -1 before the first placement
        turned_ = -1;
        if (dick_) {
            circle_ = 0;
            for (auto& p : packets_)
                if (!stock_.empty()) p.push(stock_.pop());
            phase_ = stock_.empty() ? PLAY : DICK_FIRST;
        } else {
            phase_ = CADOGAN_DEAL;
            turn();
        }
    }

    // Automatic step of the Cadogan deal: turn the next card, or end the deal.
    void turn() {
        if (!stock_.empty()) {
            turned_ = stock_.pop();
        } else {
            turned_ = -1;
            phase_ = PLAY;
            fresh_.fill(0);
        }
    }

    // Cadogan: the turned card onto the next position of the circle.
    void place() {
        if (pos_ == 0) {  // the first card of a new circle blocks the one before
            ++circle_;
            fresh_.fill(0);
        }
        packets_[pos_].push(turned_);
        fresh_[pos_] = 1;
        pos_ = (pos_ + 1) % N_PACKETS;
        turn();
    }

    // Dick: the rest of the pack in circles on top of the first, starting at a.
    void deal_rest() {
        int i = 0;
        for (; !stock_.empty(); ++i) packets_[i % N_PACKETS].push(stock_.pop());
        circle_ += (i + N_PACKETS - 1) / N_PACKETS;
        phase_ = PLAY;
    }

    // The new pack of a re-deal, first card dealt first: packet g bottom to top, h, ... m, a ... f.
    Stack<N_DEALT> gather() const {
        Stack<N_DEALT> order;
        for (int p : GATHER)
            for (int k = 0; k < packets_[p].size(); ++k) order.push(packets_[p][k]);
        return order;
    }

    // ---- the rules (louis.py: _top, _fits_up, _fits_down) -------------------------------------

    // The card at source s if it is available now, else -1: during the Cadogan deal only the
    // cards placed in the current circle (fresh) may move.
    int top(int s) const {
        if (s == TURNED) return turned_;
        const auto& pile = packets_[s];
        if (pile.empty()) return -1;
        if (phase_ == CADOGAN_DEAL && !fresh_[s]) return -1;
        return pile.back();
    }

    bool fits_up(int c) const { return rank_of(c) == found_[suit_of(c)] + 1; }
    bool fits_down(int c) const { return rank_of(c) == 13 - found_[4 + suit_of(c)]; }

    bool can_deal() const { return phase_ == DICK_FIRST || (phase_ == CADOGAN_DEAL && turned_ >= 0); }
    bool can_redeal() const { return phase_ == PLAY && redeals_left_ > 0 && any_packet(); }
    bool any_packet() const {
        for (const auto& p : packets_)
            if (!p.empty()) return true;
        return false;
    }

    // Opens as Babette's does (a scan pairs them): both tables start with the up and down moves.
    bool is_legal(int a) const override {
        const Move m = move_of(a);
        switch (m.kind) {
            case Kind::Up:
            case Kind::Down: {
                const int c = top(m.src);
                if (c < 0) return false;
                return m.kind == Kind::Up ? fits_up(c) : fits_down(c);
            }
            case Kind::Deal: return can_deal();
            case Kind::Marry: {
                if (phase_ != PLAY) return false;
                const int c = top(m.src), base = top(m.dst);
                return c >= 0 && base >= 0 && same_suit_either(base, c);
            }
            case Kind::Redeal: return can_redeal();
        }
        return false;
    }

    // The rules of is_legal, enumerated source by source: a marriage of packet p's top needs one
    // of its two partners (same suit, one rank either side) on top of another packet, so only the
    // packets showing a partner are asked.
    void legal_mask(std::uint8_t* out) const override {
        std::memset(out, 0, N_ACTIONS);
        std::array<int, N_PACKETS + 1> tops;
        for (int s = 0; s <= TURNED; ++s) {
            const int c = tops[s] = top(s);
            if (c < 0) continue;
            out[UP0 + s] = fits_up(c);
            out[DOWN0 + s] = fits_down(c);
        }
        out[DEAL] = can_deal();
        if (phase_ != PLAY) return;
        std::array<std::uint16_t, N_KINDS> showing{};  // bit q: packet q's top is this card
        for (int q = 0; q < N_PACKETS; ++q)
            if (tops[q] >= 0) showing[tops[q]] |= static_cast<std::uint16_t>(1u << q);
        for (int p = 0; p < N_PACKETS; ++p) {
            const int c = tops[p];
            if (c < 0) continue;
            for (int rank : {rank_of(c) - 1, rank_of(c) + 1}) {
                if (rank < ACE || rank > KING) continue;
                const int base = card_of(rank, suit_of(c));
                for (int q = 0; q < N_PACKETS; ++q)
                    if (q != p && (showing[base] >> q & 1u) && same_suit_either(base, c)) out[marry_id(p, q)] = 1;
            }
        }
        out[REDEAL] = can_redeal();
    }

    void apply(int a) override {
        const Move m = move_of(a);
        switch (m.kind) {
            case Kind::Up:
            case Kind::Down: {
                int c;
                if (m.src == TURNED) {
                    c = turned_;
                    turn();  // the next card goes to the same position
                } else {
                    c = packets_[m.src].pop();
                    fresh_[m.src] = 0;
                    if (phase_ == DICK_FIRST) {  // the gap is refilled at once
                        if (!stock_.empty()) packets_[m.src].push(stock_.pop());
                        if (stock_.empty()) phase_ = PLAY;
                    }
                }
                ++found_[suit_of(c) + (m.kind == Kind::Up ? 0 : 4)];
                return;
            }
            case Kind::Deal:
                if (phase_ == DICK_FIRST)
                    deal_rest();
                else
                    place();
                return;
            case Kind::Marry: packets_[m.dst].push(packets_[m.src].pop()); return;
            case Kind::Redeal:
                --redeals_left_;
                start_deal(gather());
                return;
        }
    }

    // ---- reading the state ----------------------------------------------------------------------

    int foundation_cards() const override {
        int n = 0;
        for (int f : found_) n += f;
        return n - 8;  // the eight aces and kings taken out before the deal are not counted
    }

    void extra_values(std::int64_t* out) const override {
        // where each extra goes, fixed at compile time
        constexpr int X_CARDS_ON_FOUNDATIONS = spec.extra("cards_on_foundations");
        constexpr int X_REDEALS_LEFT = spec.extra("redeals_left");
        constexpr int X_PHASE = spec.extra("phase");
        out[X_CARDS_ON_FOUNDATIONS] = foundation_cards() + 8;
        out[X_REDEALS_LEFT] = redeals_left_;
        out[X_PHASE] = phase_;  // an index into louis._PHASE_NAMES
    }

    void observe(float* out) const override {
        const bool cadogan = phase_ == CADOGAN_DEAL;
        for (int p = 0; p < N_PACKETS; ++p) {
            const auto& pile = packets_[p];
            const int n = pile.size();
            if (n == 0) continue;
            pile_rows(pile, out + O_CARDS + p * N_KINDS, out + O_DEPTH + p * N_KINDS, out + O_LOWER + p * N_KINDS);
            out[O_TOP + p * N_KINDS + pile.back()] = 1.0f;
            out[(cadogan && !fresh_[p] ? O_BLOCKED : O_AVAIL) + p] = 1.0f;
        }
        if (turned_ >= 0) out[O_TURNED + turned_] = 1.0f;
        if (cadogan) out[O_POS + pos_] = 1.0f;
        out[O_PHASE + phase_] = 1.0f;
        // Computed in double and rounded once, as Python's float -> numpy float32 (for the
        // foundations numpy divides in float32: exact division rounds the same either way).
        for (int f = 0; f < 8; ++f) out[O_FOUND + f] = static_cast<float>(found_[f] / 13.0);
        out[O_PACK] = static_cast<float>(stock_.size() / double(N_DEALT));
        const int circle = std::min(std::max(circle_, 0) + 1, 8);
        out[O_CIRCLE] = static_cast<float>(circle / 8.0);
        out[O_REDEALS] = static_cast<float>(redeals_left_ / double(N_REDEALS));
        if (recall_ && redeals_left_ < N_REDEALS)  // the first deal's pack was never seen
            pile_rows(stock_, out + O_PACK_CARDS, out + O_PACK_DEPTH, out + O_PACK_LOWER);
    }

    std::vector<int> cards_in_play() const override {
        std::vector<int> cards;
        append_cards(cards, packets_);
        stock_.append_to(cards);
        if (turned_ >= 0) cards.push_back(turned_);
        for (int s = 0; s < 4; ++s) {
            for (int r = 1; r <= found_[s]; ++r) cards.push_back(card_of(r, s));
            for (int r = 13; r > 13 - found_[4 + s]; --r) cards.push_back(card_of(r, s));
        }
        return cards;
    }

    std::string state_key() const override {
        return key_of(packets_, stock_, turned_, found_, phase_, circle_, pos_, fresh_, redeals_left_);
    }

    // ---- the solver's hooks (solver.hpp) --------------------------------------------------------

    // The position up to what the rules cannot tell apart:
    // * circle_ is dropped always: it only numbers circles for the observation and the text (the
    //   rules read pos_ and fresh_, never the count);
    // * once the deal is complete (PLAY), pos_, fresh_, turned_ and the (empty) pack are dropped:
    //   nothing reads them until a re-deal, and start_deal() resets every one of them;
    // * after the last re-deal (PLAY, redeals_left_ == 0) the packets are sorted: every rule of
    //   PLAY (top to a foundation, top onto another packet's top) treats the twelve positions
    //   alike, and only a re-deal (gather's order g h ... f) reads where a packet lies.
    std::string canonical_key() const override {
        std::string key;
        key_put(key, phase_);
        key_put(key, redeals_left_);
        for (int f : found_) key_put(key, f);
        if (phase_ == PLAY) {
            if (redeals_left_ == 0) {
                key_put_sorted(key, packets_);
            } else {
                for (const auto& p : packets_) key_put(key, p);
            }
            return key;
        }
        for (const auto& p : packets_) key_put(key, p);
        key_put(key, stock_);
        key_put(key, turned_);
        key_put(key, pos_);
        for (int f : fresh_) key.push_back(static_cast<char>(f));
        return key;
    }

    // canonical_key() hashed without building it: the same parts, each mixed in; the sorted
    // packets of the last deal's play as a multiset (their hashes summed). Equal keys, equal hashes.
    std::uint64_t canonical_hash() const override {
        std::uint64_t h = hash_mix(0x51u + static_cast<std::uint64_t>(phase_ * 8 + redeals_left_)), found = 0;
        for (int f : found_) found = (found << 8) | static_cast<std::uint8_t>(f);
        h = hash_mix(h ^ found);
        if (phase_ == PLAY && redeals_left_ == 0) {
            std::uint64_t sum = 0;
            for (const auto& p : packets_) sum += hash_mix(hash_stack(p, 7));
            return hash_mix(h ^ sum);
        }
        for (const auto& p : packets_) h = hash_mix(h ^ hash_stack(p, 11));
        if (phase_ == PLAY) return h;
        h = hash_mix(h ^ hash_stack(stock_, 13));
        std::uint64_t fresh = 0;
        for (int f : fresh_) fresh = (fresh << 1) | static_cast<std::uint64_t>(f != 0);
        return hash_mix(h ^ static_cast<std::uint64_t>(turned_ + 1) ^ static_cast<std::uint64_t>(pos_) << 8 ^ fresh << 24);
    }

    // A dead position (solver.hpp): after the last re-deal, once the deal is complete (PLAY,
    // no re-deal left), a *stuck set* S of packet cards that can never move again. Say a card
    // is *covered* when a card of S lies above it in its packet, and a card (rank and suit) is
    // *blocked* when every copy of it still in the packets is in S or covered. S is the largest
    // set in which every card x (rank r, suit s) not covered meets all of:
    //  (1) the ace foundation of s never takes x: it is already at r or above, or it is below
    //      r - 1 and some rank k between it and r (exclusive) is blocked in suit s;
    //  (2) the king foundation of s never takes x: the same, downwards (it already holds r or
    //      below, or some rank k between r and its top is blocked);
    //  (3) x can never be married: both its partners, r - 1 and r + 1 of suit s, have every
    //      copy in the packets covered (a copy on a foundation is no base).
    // A non-empty S means the position is lost. Take the first move that moves a card x of S;
    // until then every card of S lies where it lies. x moves only as its packet's top, so no
    // card of S lies above it: x is not covered and meets (1)-(3). To go up, the ace foundation
    // must reach r - 1 through rank k, and every copy of rank k still in play lies in S (not
    // moved yet) or under a card of S (not a top yet), while the foundation cards never come
    // back; (2) likewise; a marriage needs a partner on top of a packet, and every copy lies
    // under a card of S. Empty packets stay empty, there is no re-deal left and no other move.
    // So no card of S ever moves, and the game cannot be won. The conditions only get easier
    // as S grows, so S is found by starting from every packet card and taking out, until none
    // is left to take, a card that is not covered and fails one of them (only the highest card
    // of S in a packet is not covered, so at most twelve are checked a round). Cards leave S
    // from a packet's top down, so S holds exactly each packet's cards up to hi[p].
    bool dead() const override {
        if (phase_ != PLAY || redeals_left_ != 0) return false;
        // where the (at most two) copies of each card lie in the packets
        std::array<std::array<std::int8_t, 2>, N_KINDS> at_packet, at_index;
        std::array<std::int8_t, N_KINDS> copies{};
        std::array<int, N_PACKETS> hi;  // the highest index of a card of S in each packet, -1: none
        for (int p = 0; p < N_PACKETS; ++p) {
            const auto& pile = packets_[p];
            for (int k = 0; k < pile.size(); ++k) {
                const int c = pile[k];
                at_packet[c][copies[c]] = static_cast<std::int8_t>(p);
                at_index[c][copies[c]] = static_cast<std::int8_t>(k);
                ++copies[c];
            }
            hi[p] = pile.size() - 1;
        }
        auto covered = [&](int p, int k) { return k < hi[p]; };
        auto in = [&](int p, int k) { return k <= hi[p]; };
        auto still = [&](int c, bool s_counts) {  // every copy in S (when s_counts) or covered
            for (int i = 0; i < copies[c]; ++i) {
                const int p = at_packet[c][i], k = at_index[c][i];
                if (!(covered(p, k) || (s_counts && in(p, k)))) return false;
            }
            return true;
        };
        auto stays = [&](int x) {  // conditions (1)-(3) for x, not covered
            const int r = rank_of(x), s = suit_of(x);
            const int up = found_[s], down = 14 - found_[4 + s];  // the foundations' top ranks
            if (up == r - 1 || down == r + 1) return false;  // a foundation takes it now
            if (up < r - 1) {
                bool stop = false;
                for (int k = up + 1; k < r && !stop; ++k) stop = still(card_of(k, s), true);
                if (!stop) return false;
            }
            if (down > r + 1) {
                bool stop = false;
                for (int k = down - 1; k > r && !stop; --k) stop = still(card_of(k, s), true);
                if (!stop) return false;
            }
            for (int k : {r - 1, r + 1})
                if (k >= ACE && k <= KING && !still(card_of(k, s), false)) return false;
            return true;
        };
        for (bool changed = true; changed;) {
            changed = false;
            for (int p = 0; p < N_PACKETS; ++p) {
                while (hi[p] >= 0 && !stays(packets_[p][hi[p]])) {
                    --hi[p];
                    changed = true;
                }
            }
        }
        for (int p = 0; p < N_PACKETS; ++p)
            if (hi[p] >= 0) return true;
        return false;
    }

    // How deep the cards the foundations take next lie (greedy's measure, agents/heuristics/
    // louis.py): for each foundation, the fewest cards lying on a copy of its next card in the
    // packets, or 20 when no copy lies in a packet; here as after the marriage of packet from's
    // top onto packet to (measured without playing it), from the position's Wanted table.
    static constexpr std::int8_t NONE = 100;  // more than any depth (a packet holds at most 96)
    struct Wanted {
        std::array<int, 8> card;  // each foundation's next card, -1 when it is full
        // per foundation and packet: the fewest cards lying on a copy of that card, and the same
        // among the copies that are not the packet's top (NONE: no copy there)
        std::array<std::array<std::int8_t, N_PACKETS>, 8> depth, under_top;
    };
    Wanted wanted() const {
        Wanted w;
        std::array<std::array<std::int8_t, 2>, N_KINDS> by{};  // the foundations (+1) wanting each card
        for (int f = 0; f < 8; ++f) {
            w.card[f] = found_[f] >= 13 ? -1 : card_of(f < 4 ? found_[f] + 1 : 13 - found_[f], f % 4);
            if (w.card[f] >= 0) by[w.card[f]][by[w.card[f]][0] ? 1 : 0] = static_cast<std::int8_t>(f + 1);
            w.depth[f].fill(NONE);
            w.under_top[f].fill(NONE);
        }
        for (int q = 0; q < N_PACKETS; ++q) {
            const auto& p = packets_[q];
            for (int k = 0; k < p.size(); ++k)
                for (const int f1 : by[p[k]]) {
                    if (!f1) break;
                    const auto d = static_cast<std::int8_t>(p.size() - 1 - k);
                    auto& depth = w.depth[f1 - 1][q];
                    auto& under = w.under_top[f1 - 1][q];
                    depth = std::min(depth, d);
                    if (d > 0) under = std::min(under, d);
                }
        }
        return w;
    }
    int buried(const Wanted& w, int from, int to) const {
        const int moved = packets_[from].back();
        int total = 0;
        for (int f = 0; f < 8; ++f) {
            if (w.card[f] < 0) continue;
            int best = moved == w.card[f] ? 0 : 20;  // the married card lies on top of packet to
            for (int q = 0; q < N_PACKETS; ++q) {
                const int d = q == from ? w.under_top[f][q] - 1   // from's top gone
                              : q == to ? w.depth[f][q] + 1        // to's new top
                                        : w.depth[f][q];
                best = std::min(best, d);
            }
            total += best;
        }
        return total;
    }

    // Move ordering only: in play, the move after which the wanted cards lie least deep first
    // (greedy's choice); a re-deal last (it gives up the whole arrangement for a new deal).
    int move_priority(int a) const override { return priority(a, nullptr); }
    int priority(int a, const Wanted* w) const {
        const Move m = move_of(a);
        if (m.kind == Kind::Redeal) return -1000;
        if (m.kind != Kind::Marry) return 0;
        return -buried(w ? *w : wanted(), m.src, m.dst);
    }
    // The solver's moves are every legal action alone (core.hpp's default), ranked by
    // move_priority's measure with the position's Wanted table made once, not once a move.
    void solver_moves(std::vector<SolverMove>& out) const override {
        std::array<std::uint8_t, N_ACTIONS> mask;
        legal_mask(mask.data());
        std::optional<Wanted> w;
        for (int a = 0; a < N_ACTIONS; ++a) {
            if (!mask[static_cast<std::size_t>(a)]) continue;
            if (!w && move_of(a).kind == Kind::Marry) w = wanted();
            out.push_back({{a}, priority(a, w ? &*w : nullptr)});
        }
    }

private:
    // configuration
    bool dick_;
    bool recall_;  // recall=True: the observation gives a re-dealt pack's order
    // position (louis.py STATE). A packet can hold at most the 96 dealt cards (marriages may
    // pile a whole suit's chain on one packet), and so can the pack.
    std::array<Stack<N_DEALT>, N_PACKETS> packets_{};
    Stack<N_DEALT> stock_;  // the face-down pack; back() is the next card turned (stock[-1])
    int turned_ = -1;
    std::array<int, 8> found_{};
    int phase_ = CADOGAN_DEAL;
    int circle_ = -1;  // the circle now being dealt; -1 before the first placement
    int pos_ = 0;      // where the next placed card goes
    std::array<std::int8_t, N_PACKETS> fresh_{};  // 1: the packet's top was placed in this circle
    int redeals_left_ = N_REDEALS;
};

// louis.Louis.OPTIONS: deal ("cadogan" or "dick"), recall.
[[maybe_unused]] const bool registered = register_game(spec, [](const Options& o) -> std::unique_ptr<Game> {
    return std::make_unique<Louis>(o["deal"] == spec.choice("deal", "dick"), o["recall"] != 0);
});

}  // namespace

}  // namespace pg

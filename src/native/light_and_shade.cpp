// Light and Shade: the native twin of patience_gym/games/light_and_shade.py (docs/rules.md
// section 6). Two packs.
//
// Same action table and observation as the Python module (their ids, offsets and sizes come from
// it, through generated/light_and_shade_spec.hpp), and the same silent choices, which its docstring
// documents; the comments here only say where C++ differs in form. Texts are Python's alone.
#include <algorithm>
#include <cstring>
#include <string>

#include "core.hpp"
#include "light_and_shade_spec.hpp"

namespace pg {
namespace {

constexpr const auto& spec = generated::light_and_shade;

constexpr int N_AUX = 4, N_RIVALS = 4, N_FOUND = 8;
constexpr int N_PACK = 2 * N_KINDS - N_FOUND - N_AUX - N_RIVALS;  // 88
constexpr int MAX_AUX = 12;                                       // a K down to a 2
constexpr int MAX_REDEALS = 2;  // the most the (non-book) redeals option allows
constexpr int EMPTY = -1;       // an empty Rival

// Action ids: the first of each kind in light_and_shade.TABLE (move_of reads them in this order).
constexpr int AUX_F0 = spec.first("AUX_TO_FOUNDATION"), RIVAL_A0 = spec.first("RIVAL_TO_AUX");
constexpr int TALON_A0 = spec.first("TALON_TO_AUX");
constexpr int TALON_R0 = spec.first("TALON_TO_RIVAL"), PACK_R0 = spec.first("PACK_TO_RIVAL");
constexpr int TURN = spec.first("TURN");
constexpr int REDEAL = spec.first("REDEAL"), N_ACTIONS = spec.n_actions();
static_assert(AUX_F0 < RIVAL_A0 && RIVAL_A0 < TALON_A0 && TALON_A0 < TALON_R0 && TALON_R0 < PACK_R0 &&
              PACK_R0 < TURN && TURN < REDEAL && spec.count("RIVAL_TO_AUX") == N_RIVALS * N_AUX);

// Observation places per card (light_and_shade.PLACES, by their names): auxiliary 0-3, rival 0-3,
// then the talon's top three (P_TALON_TOP + 0, 1, 2), the talon below them, foundation, pack.
constexpr int P_RIVAL = spec.place("rival 0"), P_TALON_TOP = spec.place("talon top");
constexpr int P_TALON_BELOW = spec.place("talon below the top three (seen)");
constexpr int P_FOUNDATION = spec.place("foundation"), P_PACK = spec.place("pack (not visible)");
constexpr int NP = spec.n_places(), FAN = 3;
// Offsets (light_and_shade.LightAndShade.LAYOUT); pack_size, talon_size, talon_to_auxiliaries and
// redeals_left lie side by side.
constexpr int O_PLACE = spec.offset("card_place"), O_TOP = spec.offset("aux_top");
constexpr int O_SIZE = spec.offset("aux_size");
constexpr int O_RANK = spec.offset("foundation_rank"), O_RED = spec.offset("foundation_red");
constexpr int O_PACK = spec.offset("pack_size");
constexpr int OBS_SIZE = spec.obs_size();
static_assert(spec.offset("redeals_left") == O_PACK + 3 && OBS_SIZE == O_PACK + 4);
constexpr float COPY = 0.5f;  // one of two copies (core.places.CardPlaces with n_packs=2)

// ALTERNATE_UP (the foundations) and ALTERNATE_DOWN (onto an Auxiliary, core.hpp).
constexpr bool alternate_up(int base, int c) { return is_red(base) != is_red(c) && rank_of(c) == rank_of(base) + 1; }

enum class Kind { AuxToFoundation, RivalToAux, TalonToAux, TalonToRival, PackToRival, Turn, Redeal };
using Move = pg::Move<Kind>;

constexpr Move move_of(int a) {
    if (a < RIVAL_A0) return {Kind::AuxToFoundation, a - AUX_F0, -1};
    if (a < TALON_A0) return {Kind::RivalToAux, (a - RIVAL_A0) / N_AUX, (a - RIVAL_A0) % N_AUX};
    if (a < TALON_R0) return {Kind::TalonToAux, -1, a - TALON_A0};
    if (a < PACK_R0) return {Kind::TalonToRival, -1, a - TALON_R0};
    if (a < TURN) return {Kind::PackToRival, -1, a - PACK_R0};
    if (a == TURN) return {Kind::Turn, -1, -1};
    return {Kind::Redeal, -1, -1};
}

class LightAndShade final : public Port<LightAndShade, spec> {
public:
    LightAndShade(bool talon_to_aux, int redeals) : talon_to_aux_(talon_to_aux), redeals_allowed_(redeals) {}


    // ---- dealing ------------------------------------------------------------------------------

    void deal(const std::vector<int>& pack) override {
        // cards.take_out: the first copy of each ace C D H S, then the second copies, set out as
        // the foundations; the rest is dealt in order.
        std::array<bool, 2 * N_KINDS> taken{};
        const int n = static_cast<int>(pack.size());
        for (int f = 0; f < N_FOUND; ++f) {
            const int ace = card_of(ACE, f % 4);
            int k = 0;
            while (taken[k] || pack[k] != ace) ++k;
            taken[k] = true;
            found_[f].clear();
            found_[f].push(ace);
        }
        int dealt = 0;
        std::array<std::int8_t, 2 * N_KINDS> rest{};
        for (int k = 0; k < n; ++k)
            if (!taken[k]) rest[dealt++] = static_cast<std::int8_t>(pack[k]);
        for (int i = 0; i < N_AUX; ++i) {
            aux_[i].clear();
            aux_[i].push(rest[i]);
        }
        for (int r = 0; r < N_RIVALS; ++r) rivals_[r] = rest[N_AUX + r];
        pack_.clear();
        for (int k = dealt - 1; k >= N_AUX + N_RIVALS; --k) pack_.push(rest[k]);  // back() turns next
        talon_.clear();
        redeals_left_ = redeals_allowed_;
    }

    // ---- the rules (light_and_shade.py: _foundation_for, _aux_takes_from_rivals, ...) ---------

    // The leftmost foundation that accepts c, or -1 (a foundation is never empty: its ace).
    int foundation_for(int c) const {
        for (int f = 0; f < N_FOUND; ++f)
            if (alternate_up(found_[f].back(), c)) return f;
        return -1;
    }

    // Does Auxiliary a take Rival card c: one lower than its top in the other colour, or any
    // card into it when empty.
    bool aux_takes_from_rivals(int a, int c) const {
        const auto& pile = aux_[a];
        return pile.empty() || alternate_down(pile.back(), c);
    }

    // Does Auxiliary a take talon card c: by the same rule, never into an empty one, and only
    // under talon_to_auxiliaries.
    bool aux_takes_from_talon(int a, int c) const {
        const auto& pile = aux_[a];
        return talon_to_aux_ && !pile.empty() && alternate_down(pile.back(), c);
    }

    bool rival_open(int r) const { return rivals_[r] == EMPTY; }
    bool may_turn() const { return !pack_.empty(); }
    bool may_redeal() const { return redeals_left_ > 0 && pack_.empty() && !talon_.empty(); }

    bool is_legal(int a) const override {
        const Move m = move_of(a);
        switch (m.kind) {
            case Kind::Turn: return may_turn();
            case Kind::AuxToFoundation: return !aux_[m.src].empty() && foundation_for(aux_[m.src].back()) >= 0;
            case Kind::RivalToAux: {
                const int c = rivals_[m.src];
                return c != EMPTY && aux_takes_from_rivals(m.dst, c);
            }
            case Kind::TalonToAux: return !talon_.empty() && aux_takes_from_talon(m.dst, talon_.back());
            case Kind::TalonToRival: return !talon_.empty() && rival_open(m.dst);
            case Kind::PackToRival: return may_turn() && rival_open(m.dst);
            case Kind::Redeal: return may_redeal();
        }
        return false;
    }

    // As LightAndShade.legal_mask: the rules of is_legal, place by place.
    void legal_mask(std::uint8_t* out) const override {
        std::memset(out, 0, N_ACTIONS);
        for (int i = 0; i < N_AUX; ++i)
            if (!aux_[i].empty()) out[AUX_F0 + i] = foundation_for(aux_[i].back()) >= 0;
        for (int r = 0; r < N_RIVALS; ++r) {
            if (rival_open(r)) {
                out[TALON_R0 + r] = !talon_.empty();
                out[PACK_R0 + r] = may_turn();
                continue;
            }
            for (int a = 0; a < N_AUX; ++a) out[RIVAL_A0 + N_AUX * r + a] = aux_takes_from_rivals(a, rivals_[r]);
        }
        if (!talon_.empty()) {
            const int tc = talon_.back();
            for (int a = 0; a < N_AUX; ++a) out[TALON_A0 + a] = aux_takes_from_talon(a, tc);
        }
        out[TURN] = may_turn();
        out[REDEAL] = may_redeal();
    }

    void apply(int a) override {
        const Move m = move_of(a);
        switch (m.kind) {
            case Kind::Turn: talon_.push(pack_.pop()); return;
            case Kind::AuxToFoundation: {
                const int c = aux_[m.src].pop();
                found_[foundation_for(c)].push(c);
                return;
            }
            case Kind::RivalToAux:
                aux_[m.dst].push(rivals_[m.src]);
                rivals_[m.src] = EMPTY;
                return;
            case Kind::TalonToAux: aux_[m.dst].push(talon_.pop()); return;
            case Kind::TalonToRival: rivals_[m.dst] = static_cast<std::int8_t>(talon_.pop()); return;
            case Kind::PackToRival: rivals_[m.dst] = static_cast<std::int8_t>(pack_.pop()); return;
            case Kind::Redeal:
                // turned over (Python's talon[::-1]): the first card turned is turned first again
                pack_.clear();
                for (int k = talon_.size() - 1; k >= 0; --k) pack_.push(talon_[k]);
                talon_.clear();
                --redeals_left_;
                return;
        }
    }

    // ---- reading the state --------------------------------------------------------------------

    int foundation_cards() const override {
        int n = 0;
        for (const auto& p : found_) n += p.size();
        return n - N_FOUND;
    }

    void extra_values(std::int64_t* out) const override {
        // where each extra goes, fixed at compile time
        constexpr int X_REDEALS_LEFT = spec.extra("redeals_left");
        out[X_REDEALS_LEFT] = redeals_left_;
    }

    void observe(float* out) const override {
        // card_place: each copy adds 0.5 at its place (CardPlaces.write's np.add.at).
        auto place = [out](int c, int p) { out[O_PLACE + c * NP + p] += COPY; };
        for (int i = 0; i < N_AUX; ++i) {
            const auto& pile = aux_[i];
            for (int k = 0; k < pile.size(); ++k) place(pile[k], i);
            if (!pile.empty()) out[O_TOP + N_KINDS * i + pile.back()] = 1.0f;
            out[O_SIZE + i] = static_cast<float>(pile.size() / double(MAX_AUX));
        }
        for (int r = 0; r < N_RIVALS; ++r)
            if (rivals_[r] != EMPTY) place(rivals_[r], P_RIVAL + r);
        const int top = talon_.size() - 1;
        for (int k = 0; k < talon_.size(); ++k) {
            const int above = top - k;  // 0: top, 1: second, 2: third, then "below"
            place(talon_[k], above < FAN ? P_TALON_TOP + above : P_TALON_BELOW);
        }
        for (int f = 0; f < N_FOUND; ++f) {
            const auto& pile = found_[f];
            out[O_RANK + f] = static_cast<float>(rank_of(pile.back()) / 13.0);
            out[O_RED + f] = is_red(pile[0]) ? 1.0f : 0.0f;
            for (int k = 0; k < pile.size(); ++k) place(pile[k], P_FOUNDATION);
        }
        for (int k = 0; k < pack_.size(); ++k) place(pack_[k], P_PACK);
        float* o = out + O_PACK;
        *o++ = static_cast<float>(pack_.size() / double(N_PACK));
        *o++ = static_cast<float>(talon_.size() / double(N_PACK));
        *o++ = talon_to_aux_ ? 1.0f : 0.0f;
        *o = static_cast<float>(redeals_left_ / double(MAX_REDEALS));
    }

    std::vector<int> cards_in_play() const override {
        std::vector<int> cards;
        append_cards(cards, aux_);
        for (int c : rivals_)
            if (c != EMPTY) cards.push_back(c);
        pack_.append_to(cards);
        talon_.append_to(cards);
        append_cards(cards, found_);
        return cards;
    }

    std::string state_key() const override {
        return key_of(aux_, rivals_, pack_, talon_, found_, redeals_left_);
    }

    // ---- the solver's hooks (solver.hpp) --------------------------------------------------------

    // No rule reads a card's suit: the foundations build up in alternating colours, suit
    // ignored, and the Auxiliaries down in alternating colours; so a card is its rank and colour
    // to the solver (the four copies of a red five are one card).
    static char key_card(int c) { return static_cast<char>(2 * rank_of(c) + (is_red(c) ? 1 : 0)); }

    // The position up to what the rules cannot tell apart:
    // * cards as rank and colour (key_card above);
    // * the four Auxiliaries sorted, and the four Rivals sorted: every rule treats the places of
    //   a row alike (a Rival card onto any Auxiliary, the talon or pack into any empty Rival);
    // * a foundation is its top card only (what it takes next reads nothing else), and the
    //   eight are sorted: a card goes to the first that fits, and foundations with equal tops
    //   are interchangeable.
    std::string canonical_key() const override {
        std::string key;
        std::array<std::string, N_AUX> aux;
        for (int i = 0; i < N_AUX; ++i) {
            aux[i].push_back(static_cast<char>(aux_[i].size()));
            for (int k = 0; k < aux_[i].size(); ++k) aux[i].push_back(key_card(aux_[i][k]));
        }
        std::sort(aux.begin(), aux.end());
        for (const auto& a : aux) key += a;
        std::array<char, N_RIVALS> rivals;
        for (int r = 0; r < N_RIVALS; ++r) rivals[r] = rivals_[r] == EMPTY ? char(0) : key_card(rivals_[r]);
        std::sort(rivals.begin(), rivals.end());
        key.append(rivals.data(), rivals.size());
        std::array<char, N_FOUND> tops;
        for (int f = 0; f < N_FOUND; ++f) tops[f] = key_card(found_[f].back());
        std::sort(tops.begin(), tops.end());
        key.append(tops.data(), tops.size());
        key.push_back(static_cast<char>(pack_.size()));
        for (int k = 0; k < pack_.size(); ++k) key.push_back(key_card(pack_[k]));
        key.push_back(static_cast<char>(talon_.size()));
        for (int k = 0; k < talon_.size(); ++k) key.push_back(key_card(talon_[k]));
        key.push_back(static_cast<char>(redeals_left_));
        return key;
    }

    // Does foundation f hold a card of this rank and colour (red: is_red)? It holds its ace up
    // to its top, colours alternating.
    bool foundation_holds(int f, int rank, bool red) const {
        const int top = found_[f].back();
        return rank_of(top) >= rank && (is_red(top) == red) == ((rank_of(top) - rank) % 2 == 0);
    }

    // A safe automatic move (solver.hpp): Auxiliary a's top card c, of rank r, goes up when
    //  (1) nothing can ever be put on it: only a card of rank r - 1 in the other colour goes on
    //      an Auxiliary top, and it comes from a Rival or the talon (first from the pack); a card
    //      on an Auxiliary or a foundation never moves anywhere but up. So when no such card is
    //      among the Rivals, the talon and the pack, c can only wait to go up;
    //  (2) no card of c's rank and colour is ever kept off a foundation by it: the foundations
    //      now taking c (top: rank r - 1, other colour; only a card like c changes them) are at
    //      least as many as the cards like c still off the foundations, c included.
    // Then a winning line from here, c's own move left out, stays legal and wins after c goes
    // up: nothing it moved onto c, every card like c finds a foundation still open, a move onto
    // a foundation finds one at least as far, and emptying the Auxiliary only offers a fill.
    int safe_move() const override {
        for (int a = 0; a < N_AUX; ++a) {
            if (aux_[a].empty()) continue;
            const int c = aux_[a].back();
            if (foundation_for(c) < 0) continue;
            const int r = rank_of(c);
            const bool red = is_red(c);
            const char base = static_cast<char>(2 * (r - 1) + (red ? 0 : 1));  // rank r - 1, other colour
            bool fed = false;
            for (int x : rivals_) fed = fed || (x != EMPTY && key_card(x) == base);
            for (int k = 0; k < pack_.size() && !fed; ++k) fed = key_card(pack_[k]) == base;
            for (int k = 0; k < talon_.size() && !fed; ++k) fed = key_card(talon_[k]) == base;
            if (fed) continue;
            int open = 0, up = 0;
            for (int f = 0; f < N_FOUND; ++f) {
                if (rank_of(found_[f].back()) == r - 1 && is_red(found_[f].back()) != red) ++open;
                if (foundation_holds(f, r, red)) ++up;
            }
            if (open >= 4 - up) return AUX_F0 + a;  // four cards of each rank and colour
        }
        return -1;
    }

    // A dead position (solver.hpp), without re-deals left: a *stuck set* S of cards on the
    // Auxiliaries, in the Rivals and in the talon that can never move again. A card is *covered*
    // when a card of S lies above it in its Auxiliary or in the talon; a class (rank and colour)
    // is *held* when no copy of it is in the pack and every copy off the foundations is in S or
    // covered. An Auxiliary's *anchor* is its highest card of S; its *reach* is the ranks (in
    // its colour pattern: colours alternate with rank) from its top card's up to its anchor's,
    // and below the top's down to a rank q when no class between q and the top's rank (q
    // included, the top's excluded) is held. S is the largest set in which every card x (rank r)
    // not covered meets:
    //  * on an Auxiliary: no foundation of x's pattern is at r - 1, and each one below it has a
    //    held class among the ranks above its top and below r;
    //  * in a Rival: every Auxiliary has an anchor, and none has r + 1 of the other colour in
    //    its reach;
    //  * in the talon: every Rival holds a card of S, and (when the talon may go onto the
    //    Auxiliaries) no Auxiliary has r + 1 of the other colour in its reach, where an Auxiliary
    //    without a card of S counts its bottom card as its anchor and an empty one has no reach.
    // A non-empty S means the position is lost. Take the first move that moves a card x of S;
    // until then every card of S lies where it lies, so x is not covered and meets the above.
    // A held class cannot move before it (its copies are in S, or under a card of S, and none
    // is in the pack), and foundation cards never come back, so a foundation below r - 1 cannot
    // reach r - 1 through its held class: x on an Auxiliary (which leaves only for a
    // foundation) cannot go up. An Auxiliary with an anchor z keeps z, so its top lies between
    // its top now and z, or is built down from its top now, one class at a time, through no held
    // class: r + 1 of the other colour is out of its reach, and it is never empty, so a Rival x
    // (which leaves only for an Auxiliary) cannot move. With every Rival holding a card of S no
    // Rival is ever empty, so an empty Auxiliary is never filled again (only a Rival fills it)
    // and an Auxiliary without a card of S holds its bottom card or nothing: a talon x (which
    // leaves only for an Auxiliary's top or an empty Rival) cannot move. So no card of S ever
    // reaches a foundation. The conditions only get easier as S grows, so S is found by
    // starting from every card off the pack and the foundations and taking out, until none is
    // left to take, a card that is not covered and fails its condition (in an Auxiliary and in
    // the talon only the highest card of S is not covered).
    bool dead() const override {
        if (redeals_left_ != 0) return false;  // a re-deal turns the talon into a new pack
        constexpr int N_CLASSES = 28;          // key_card: 2 * rank + red
        std::uint32_t in_pack = 0, off_pack = 0;
        for (int k = 0; k < pack_.size(); ++k) in_pack |= 1u << key_card(pack_[k]);
        // Without a class held by cards of S (every copy off the pack), no card of an Auxiliary
        // meets its condition (a class with no copy left is above every foundation of its
        // pattern), so no Rival card has an anchor and no talon card finds every Rival in S.
        for (const auto& pile : aux_)
            for (int k = 0; k < pile.size(); ++k) off_pack |= 1u << key_card(pile[k]);
        for (int c : rivals_)
            if (c != EMPTY) off_pack |= 1u << key_card(c);
        for (int k = 0; k < talon_.size(); ++k) off_pack |= 1u << key_card(talon_[k]);
        if ((off_pack & ~in_pack) == 0) return false;
        // where the copies off the pack and the foundations lie: kind 0 Auxiliary, 1 Rival, 2 talon
        struct Place {
            std::int8_t kind, i, k;
        };
        std::array<std::array<Place, 4>, N_CLASSES> copies;
        std::array<std::int8_t, N_CLASSES> n_copies{};
        auto add = [&](int c, int kind, int i, int k) {
            const int kc = key_card(c);
            copies[kc][n_copies[kc]++] = {static_cast<std::int8_t>(kind), static_cast<std::int8_t>(i),
                                          static_cast<std::int8_t>(k)};
        };
        std::array<int, N_AUX> ahi;  // the highest index of a card of S in each Auxiliary, -1: none
        for (int i = 0; i < N_AUX; ++i) {
            for (int k = 0; k < aux_[i].size(); ++k) add(aux_[i][k], 0, i, k);
            ahi[i] = aux_[i].size() - 1;
        }
        std::array<bool, N_RIVALS> rin{};
        for (int r = 0; r < N_RIVALS; ++r)
            if (rivals_[r] != EMPTY) {
                add(rivals_[r], 1, r, 0);
                rin[r] = true;
            }
        for (int k = 0; k < talon_.size(); ++k) add(talon_[k], 2, 0, k);
        int thi = talon_.size() - 1;  // the highest index of a card of S in the talon

        auto held = [&](int kc) {
            if (in_pack >> kc & 1u) return false;
            for (int n = 0; n < n_copies[kc]; ++n) {
                const Place& p = copies[kc][n];
                const bool stays = p.kind == 0 ? p.k <= ahi[p.i] : p.kind == 1 ? rin[p.i] : p.k <= thi;
                if (!stays) return false;
            }
            return true;
        };
        // the colour of rank k in the pattern of card c (a foundation's top, an Auxiliary's card)
        auto red_at = [](int c, int k) { return is_red(c) == ((rank_of(c) - k) % 2 == 0); };
        auto class_at = [&](int c, int k) { return 2 * k + (red_at(c, k) ? 1 : 0); };
        // may Auxiliary i's top ever be rank(x) + 1 of the other colour (anchor_required: an
        // Auxiliary without a card of S may empty and take anything)?
        auto reaches = [&](int i, int x, bool anchor_required) {
            if (ahi[i] < 0 && (anchor_required || aux_[i].empty())) return anchor_required;
            const int z = aux_[i][ahi[i] >= 0 ? ahi[i] : 0];
            const int q = rank_of(x) + 1;
            if (q > rank_of(z) || red_at(z, q) == is_red(x)) return false;
            const int t = aux_[i].back();
            for (int k = q; k < rank_of(t); ++k)
                if (held(class_at(z, k))) return false;
            return true;
        };
        auto aux_stays = [&](int x) {
            const int r = rank_of(x);
            for (const auto& f : found_) {
                const int top = f.back(), l = rank_of(top);
                if (red_at(top, r) != is_red(x)) continue;  // the other pattern
                if (l == r - 1) return false;
                if (l < r - 1) {
                    bool stop = false;
                    for (int k = l + 1; k < r && !stop; ++k) stop = held(class_at(top, k));
                    if (!stop) return false;
                }
            }
            return true;
        };
        auto rival_stays = [&](int x) {
            for (int i = 0; i < N_AUX; ++i)
                if (reaches(i, x, true)) return false;
            return true;
        };
        auto talon_stays = [&](int x) {
            for (int r = 0; r < N_RIVALS; ++r)
                if (!rin[r]) return false;
            if (!talon_to_aux_) return true;
            for (int i = 0; i < N_AUX; ++i)
                if (reaches(i, x, false)) return false;
            return true;
        };
        for (bool changed = true; changed;) {
            changed = false;
            for (int i = 0; i < N_AUX; ++i)
                while (ahi[i] >= 0 && !aux_stays(aux_[i][ahi[i]])) {
                    --ahi[i];
                    changed = true;
                }
            for (int r = 0; r < N_RIVALS; ++r)
                if (rin[r] && !rival_stays(rivals_[r])) {
                    rin[r] = false;
                    changed = true;
                }
            while (thi >= 0 && !talon_stays(talon_[thi])) {
                --thi;
                changed = true;
            }
        }
        if (thi >= 0) return true;
        for (int i = 0; i < N_AUX; ++i)
            if (ahi[i] >= 0) return true;
        for (bool r : rin)
            if (r) return true;
        return false;
    }

    // Move ordering only (greedy's preferences, agents/heuristics/light_and_shade.py): build on
    // the Auxiliaries from the talon, then from the Rivals, then clear the talon into a Rival,
    // then start an empty Auxiliary; the pack's next card into a Rival, then turning, last.
    int move_priority(int a) const override {
        const Move m = move_of(a);
        switch (m.kind) {
            case Kind::TalonToAux: return 5;
            case Kind::RivalToAux: return aux_[m.dst].empty() ? 2 : 4;
            case Kind::TalonToRival: return 3;
            case Kind::PackToRival: return 1;
            default: return 0;
        }
    }

    // The solver's moves (solver.hpp): turning the pack is folded into the play that follows it.
    // * Macro moves "turn k cards (k >= 0), then play the talon's top onto an Auxiliary or into an
    //   empty Rival", for every k up to the pack's size, and "turn the rest, then re-deal" (only
    //   with the non-book redeals option). Complete: a turn reads and changes only the pack and
    //   the talon, and a move of an Auxiliary to a foundation or of a Rival onto an Auxiliary
    //   neither reads nor changes them, so in any winning line each turn can be moved later, past
    //   such moves, until it stands just before a talon play, a pack-to-Rival move, another turn
    //   or a re-deal; no turn can be last, since a won position has an empty talon. "Pack ->
    //   Rival r" reaches exactly the position of "turn, then talon -> Rival r" (the same card in
    //   the same Rival, the same talon below it), so it is not offered on its own.
    // * Interchangeable targets offered once: one empty Rival for a talon card, one empty
    //   Auxiliary for a Rival card, and one Rival for each rank and colour among the Rivals. The
    //   positions left out have the canonical key of one offered (canonical_key: Rivals and
    //   Auxiliaries sorted, cards as rank and colour), so they are won or lost alike.
    // Ordering only: foundation moves first (the solver's gain), then talon plays onto an
    // Auxiliary, Rival plays, talon plays into a Rival, each with fewer turns first.
    void solver_moves(std::vector<SolverMove>& out) const override {
        for (int a = 0; a < N_AUX; ++a)
            if (!aux_[a].empty() && foundation_for(aux_[a].back()) >= 0) out.push_back({{AUX_F0 + a}, 0});
        int empty_aux = -1;
        for (int a = 0; a < N_AUX && empty_aux < 0; ++a)
            if (aux_[a].empty()) empty_aux = a;
        int empty_rival = -1;
        for (int r = 0; r < N_RIVALS && empty_rival < 0; ++r)
            if (rival_open(r)) empty_rival = r;
        for (int r = 0; r < N_RIVALS; ++r) {
            if (rival_open(r)) continue;
            bool twin = false;  // an earlier Rival holds the same rank and colour
            for (int q = 0; q < r; ++q) twin = twin || (!rival_open(q) && key_card(rivals_[q]) == key_card(rivals_[r]));
            if (twin) continue;
            for (int a = 0; a < N_AUX; ++a) {
                if (aux_[a].empty() ? a != empty_aux : !alternate_down(aux_[a].back(), rivals_[r])) continue;
                out.push_back({{RIVAL_A0 + N_AUX * r + a}, aux_[a].empty() ? 2 : 4});
            }
        }
        std::vector<int> line;
        const int n_pack = pack_.size();
        for (int k = 0; k <= n_pack; ++k) {
            const int t = k == 0 ? (talon_.empty() ? -1 : talon_.back()) : pack_[n_pack - k];
            if (k > 0) line.push_back(TURN);
            if (t < 0) continue;
            for (int a = 0; a < N_AUX; ++a) {
                if (!aux_takes_from_talon(a, t)) continue;
                line.push_back(TALON_A0 + a);
                out.push_back({line, 5 - 100 * k});
                line.pop_back();
            }
            if (empty_rival >= 0) {
                line.push_back(TALON_R0 + empty_rival);
                out.push_back({line, (k == 0 ? 3 : 6) - 100 * k});
                line.pop_back();
            }
        }
        if (redeals_left_ > 0 && n_pack + talon_.size() > 0) {
            line.push_back(REDEAL);
            out.push_back({line, -1000000});
        }
    }

    // The beam search's layers (beam.hpp): the cards taken from the pack in this pass, passes
    // (re-deals made) first. Within a pass the pack only shrinks, and a re-deal starts a new
    // pass, so no move lowers the layer.
    int beam_layer() const override {
        return (redeals_allowed_ - redeals_left_) * (N_PACK + 1) + (N_PACK - pack_.size());
    }

    // Among positions that have taken as many cards from the pack: more foundation cards, fewer
    // cards buried in the talon (each must later find a place), empty Rivals and Auxiliaries
    // (room to place them). Ordering only.
    double beam_score() const override {
        int empty = 0;
        for (int c : rivals_) empty += c == EMPTY;
        for (const auto& p : aux_) empty += p.empty();
        return 2.0 * foundation_cards() - talon_.size() + 0.5 * empty;
    }


private:
    // configuration
    bool talon_to_aux_;
    int redeals_allowed_;
    // position (light_and_shade.py STATE)
    std::array<Stack<MAX_AUX>, N_AUX> aux_{};
    std::array<std::int8_t, N_RIVALS> rivals_{};  // EMPTY: an empty Rival
    Stack<N_PACK> pack_;                          // back() is the next card turned (Python's pack[-1])
    Stack<N_PACK> talon_;
    std::array<Stack<13>, N_FOUND> found_{};  // an ace up to a king
    int redeals_left_ = 0;
};

// light_and_shade.LightAndShade.OPTIONS: talon_to_auxiliaries (0/1), redeals (0, 1 or 2).
[[maybe_unused]] const bool registered = register_game(spec, [](const Options& o) -> std::unique_ptr<Game> {
    return std::make_unique<LightAndShade>(o["talon_to_auxiliaries"] != 0, static_cast<int>(o["redeals"]));
});

}  // namespace

}  // namespace pg

// Anna: the native twin of patience_gym/games/anna.py (docs/rules.md section 5). Two packs.
//
// Same action table and observation as the Python module (their ids, offsets and sizes come from
// it, through generated/anna_spec.hpp), and the same silent choices, which its docstring
// documents; the comments here only say where C++ differs in form. Texts are Python's alone.
#include <algorithm>
#include <cstring>
#include <string>

#include "core.hpp"
#include "anna_spec.hpp"

namespace pg {
namespace {

constexpr const auto& spec = generated::anna;

constexpr int N_HELPS = 8, N_FOUNDATIONS = 8, N_REDEALS = 2, N_CARDS = 2 * N_KINDS;
constexpr int KNAVE = 11, QUEEN = 12;
constexpr int FULL = 12;  // a full foundation: J down to A, then K (the queen never goes up)

// Action ids: the first of each kind in anna.TABLE (help -> help i-major, as help_to_help reads).
constexpr int TURN = spec.first("TURN"), REDEAL = spec.first("REDEAL");
constexpr int TALON_F = spec.first("TALON_TO_FOUNDATION");
constexpr int HELP_F0 = spec.first("HELP_TO_FOUNDATION"), TALON_H0 = spec.first("TALON_TO_HELP");
constexpr int HELP_H0 = spec.first("HELP_TO_HELP");
constexpr int N_ACTIONS = spec.n_actions();
static_assert(spec.count("HELP_TO_FOUNDATION") == N_HELPS &&
              spec.count("HELP_TO_HELP") == N_HELPS * (N_HELPS - 1));
static_assert(TURN == 0 && REDEAL == 1 && TALON_F == 2 && HELP_H0 + spec.count("HELP_TO_HELP") == N_ACTIONS);

// Observation places per card copy (anna.PLACES, by their names): help 0-7, then these; the
// talon's top three each have a place (P_TTOP + 0, 1, 2), the cards below them share one.
constexpr int P_FOUND = spec.place("foundation"), P_TTOP = spec.place("talon top");
constexpr int P_TALON = spec.place("talon below the top three (seen)"), P_PACK = spec.place("pack (face down)");
constexpr int NP = spec.n_places(), FAN = 3;
// Offsets (anna.Anna.LAYOUT); pack_size, talon_size, redeals_left, refill_pack lie side by side.
constexpr int O_PLACE = spec.offset("card_place"), O_DEPTH = spec.offset("depth");
constexpr int O_FOUND = spec.offset("foundation");
constexpr int O_PACK = spec.offset("pack_size"), OBS_SIZE = spec.obs_size();
static_assert(spec.offset("refill_pack") == O_PACK + 3 && OBS_SIZE == O_PACK + 4);

// A help is married upward in suit from its base and nothing goes on a queen (nor above a king),
// so it holds at most A..Q: 12 cards. Pack and talon hold at most the 96 cards that are no knave.
constexpr int HELP_CAP = 12, PACK_CAP = N_CARDS;

enum class Kind { Turn, Redeal, TalonToFoundation, HelpToFoundation, TalonToHelp, HelpToHelp };
using Move = pg::Move<Kind>;

constexpr Move move_of(int a) {
    if (a == TURN) return {Kind::Turn, -1, -1};
    if (a == REDEAL) return {Kind::Redeal, -1, -1};
    if (a == TALON_F) return {Kind::TalonToFoundation, -1, -1};
    if (a < TALON_H0) return {Kind::HelpToFoundation, a - HELP_F0, -1};
    if (a < HELP_H0) return {Kind::TalonToHelp, -1, a - TALON_H0};
    const int k = a - HELP_H0, i = k / (N_HELPS - 1), r = k % (N_HELPS - 1);
    return {Kind::HelpToHelp, i, r < i ? r : r + 1};
}

// The action id of "help i -> help j" (i != j), as anna._MARRIAGES_FROM reads it off the table.
constexpr int help_to_help(int i, int j) { return HELP_H0 + (N_HELPS - 1) * i + (j < i ? j : j - 1); }

// A foundation is kept as its count: its cards are fixed by the rule (J, T, ..., A, then K).
// rank_at(k): the rank of the pile's k-th card (0: the knave), which is also the rank a pile of
// k cards wants next (FOUNDATIONS' Build("down", "same", wrap=True) started by the knave).
constexpr int rank_at(int k) { return k < 11 ? KNAVE - k : KING; }

// anna.MARRY[top][c]: c goes on a help whose top is `top`, ascending in suit, never on a queen.
constexpr bool marry(int top, int c) {
    return suit_of(top) == suit_of(c) && rank_of(c) == rank_of(top) + 1 && rank_of(top) != QUEEN;
}

class Anna final : public Port<Anna, spec> {
public:
    explicit Anna(bool refill_from_pack) : refill_from_pack_(refill_from_pack) {}


    // ---- dealing ------------------------------------------------------------------------------

    void deal(const std::vector<int>& pack) override {
        pack_.clear();
        for (int k = static_cast<int>(pack.size()) - 1; k >= 0; --k) pack_.push(pack[k]);  // back() turns next
        talon_.clear();
        found_.fill(0);
        redeals_ = 0;
        for (auto& h : helps_) h.clear();
        for (int laid = 0; laid < N_HELPS;) {  // a knave goes up and the next card takes its place
            const int c = draw();
            if (c >= 0) helps_[laid++].push(c);
        }
    }

    // The pack's next card, turned up; a knave goes to the foundations at once and -1 is returned.
    int draw() {
        const int c = pack_.pop();
        if (rank_of(c) == KNAVE) {
            to_foundation(c);
            return -1;
        }
        return c;
    }

    // Under refill="pack": the pack's next card fills empty help j (knaves go up); with the pack
    // out the help waits.
    void refill(int j) {
        while (!pack_.empty()) {
            const int c = draw();
            if (c >= 0) {
                helps_[j].push(c);
                return;
            }
        }
    }

    // ---- the rules (anna.py: foundation_for, _talon_onto, _help_onto, _may_turn, _may_redeal) --

    bool accepts(int f, int c) const {
        return suit_of(c) == f / 2 && found_[f] < FULL && rank_of(c) == rank_at(found_[f]) && rank_of(c) != QUEEN;
    }

    // The foundation c goes to (the first of its suit's two that takes it), or -1.
    int foundation_for(int c) const {
        const int f = 2 * suit_of(c);
        if (accepts(f, c)) return f;
        if (accepts(f + 1, c)) return f + 1;
        return -1;
    }

    // Does help j take talon card c: married onto its top, or any card filling it when empty
    // (under refill="pack" an empty help takes only the pack's cards).
    bool talon_onto(int j, int c) const {
        const auto& h = helps_[j];
        if (!h.empty()) return marry(h.back(), c);
        return !refill_from_pack_;
    }

    // Does help j take help top card c: a marriage only, never into an empty help.
    bool help_onto(int j, int c) const {
        const auto& h = helps_[j];
        return !h.empty() && marry(h.back(), c);
    }

    bool may_turn() const { return !pack_.empty(); }
    bool may_redeal() const { return pack_.empty() && !talon_.empty() && redeals_ < N_REDEALS; }

    bool is_legal(int a) const override {
        const Move m = move_of(a);
        switch (m.kind) {
            case Kind::Turn: return may_turn();
            case Kind::Redeal: return may_redeal();
            case Kind::TalonToFoundation: return !talon_.empty() && foundation_for(talon_.back()) >= 0;
            case Kind::HelpToFoundation:
                return !helps_[m.src].empty() && foundation_for(helps_[m.src].back()) >= 0;
            case Kind::TalonToHelp: return !talon_.empty() && talon_onto(m.dst, talon_.back());
            case Kind::HelpToHelp: return !helps_[m.src].empty() && help_onto(m.dst, helps_[m.src].back());
        }
        return false;
    }

    // As anna.Anna.legal_mask: the same predicates, asked per available card.
    void legal_mask(std::uint8_t* out) const override {
        std::memset(out, 0, N_ACTIONS);
        out[TURN] = may_turn();
        out[REDEAL] = may_redeal();
        if (!talon_.empty()) {
            const int t = talon_.back();
            out[TALON_F] = foundation_for(t) >= 0;
            for (int j = 0; j < N_HELPS; ++j) out[TALON_H0 + j] = talon_onto(j, t);
        }
        for (int i = 0; i < N_HELPS; ++i) {
            if (helps_[i].empty()) continue;
            const int c = helps_[i].back();
            out[HELP_F0 + i] = foundation_for(c) >= 0;
            for (int j = 0; j < N_HELPS; ++j)
                if (j != i && help_onto(j, c)) out[help_to_help(i, j)] = 1;
        }
    }

    void apply(int a) override {
        const Move m = move_of(a);
        switch (m.kind) {
            case Kind::Turn: {
                const int c = draw();
                if (c >= 0) talon_.push(c);
                return;
            }
            case Kind::Redeal:
                // the talon turned over: its first card is turned first (Python's talon[::-1])
                pack_.clear();
                for (int k = talon_.size() - 1; k >= 0; --k) pack_.push(talon_[k]);
                talon_.clear();
                ++redeals_;
                if (refill_from_pack_)  // the waiting helps, in order, from the new pack
                    for (int j = 0; j < N_HELPS; ++j)
                        if (helps_[j].empty()) refill(j);
                return;
            case Kind::TalonToFoundation: to_foundation(talon_.pop()); return;
            case Kind::TalonToHelp: helps_[m.dst].push(talon_.pop()); return;
            case Kind::HelpToFoundation:
                to_foundation(helps_[m.src].pop());
                vacated(m.src);
                return;
            case Kind::HelpToHelp:
                helps_[m.dst].push(helps_[m.src].pop());
                vacated(m.src);
                return;
        }
    }

    void to_foundation(int c) { ++found_[foundation_for(c)]; }

    // After a card left help i: under refill="pack" an emptied help is refilled at once.
    void vacated(int i) {
        if (helps_[i].empty() && refill_from_pack_) refill(i);
    }

    // ---- reading the state --------------------------------------------------------------------

    // The k-th card (from the knave) of foundation f.
    static int foundation_card(int f, int k) { return card_of(rank_at(k), f / 2); }

    int foundation_cards() const override {
        int n = 0;
        for (int f : found_) n += f;
        return n;
    }

    void extra_values(std::int64_t* out) const override {
        // where each extra goes, fixed at compile time
        constexpr int X_REDEALS_LEFT = spec.extra("redeals_left");
        out[X_REDEALS_LEFT] = N_REDEALS - redeals_;
    }

    void observe(float* out) const override {
        // Each card's two copies take their slots in the order helps, foundations, talon, pack.
        std::array<std::int8_t, N_KINDS> seen{};
        auto place = [&](int c, int p) {
            const int slot = 2 * c + seen[c]++;
            out[O_PLACE + slot * NP + p] = 1.0f;
            return slot;
        };
        for (int i = 0; i < N_HELPS; ++i) {
            const auto& h = helps_[i];
            const int n = h.size() - 1;
            for (int k = 0; k < h.size(); ++k) {
                const int slot = place(h[k], i);
                out[O_DEPTH + slot] = static_cast<float>((n - k) / 12.0);
            }
        }
        for (int f = 0; f < N_FOUNDATIONS; ++f)
            for (int k = 0; k < found_[f]; ++k) place(foundation_card(f, k), P_FOUND);
        const int top = talon_.size() - 1;
        for (int k = 0; k < talon_.size(); ++k) {
            const int above = top - k;  // 0: top, 1: second, 2: third, then "below"
            place(talon_[k], above < FAN ? P_TTOP + above : P_TALON);
        }
        // The rest is in the pack: the complement of the above, in no order.
        for (int c = 0; c < N_KINDS; ++c)
            for (int copy = seen[c]; copy < 2; ++copy) out[O_PLACE + (2 * c + copy) * NP + P_PACK] = 1.0f;
        for (int f = 0; f < N_FOUNDATIONS; ++f) out[O_FOUND + f] = static_cast<float>(found_[f] / double(FULL));
        float* o = out + O_PACK;
        *o++ = static_cast<float>(pack_.size() / double(N_CARDS));
        *o++ = static_cast<float>(talon_.size() / double(N_CARDS));
        *o++ = static_cast<float>((N_REDEALS - redeals_) / double(N_REDEALS));
        *o = refill_from_pack_ ? 1.0f : 0.0f;
    }

    std::vector<int> cards_in_play() const override {
        std::vector<int> cards;
        append_cards(cards, helps_);
        pack_.append_to(cards);
        talon_.append_to(cards);
        for (int f = 0; f < N_FOUNDATIONS; ++f)
            for (int k = 0; k < found_[f]; ++k) cards.push_back(foundation_card(f, k));
        return cards;
    }

    std::string state_key() const override {
        std::string key;
        for (const auto& h : helps_) key_put(key, h);
        key_put(key, pack_.size());  // up to 104 cards: the count in four bytes
        key.append(reinterpret_cast<const char*>(pack_.cards.data()), static_cast<std::size_t>(pack_.size()));
        key_put(key, talon_.size());
        key.append(reinterpret_cast<const char*>(talon_.cards.data()), static_cast<std::size_t>(talon_.size()));
        for (int f : found_) key_put(key, f);
        key_put(key, redeals_);
        return key;
    }

    // ---- the solver's hooks (solver.hpp) --------------------------------------------------------

    // A queen's suit is read by no rule: queens never go up (accepts), nothing is ever put on a
    // queen (marry), and a queen could only be married onto a knave, which never lies on a help
    // (a knave goes up the moment it turns up). So every queen is one card to the solver.
    static char key_card(int c) { return rank_of(c) == QUEEN ? char(N_KINDS) : static_cast<char>(c); }
    template <int N>
    static void put_pile(std::string& key, const Stack<N>& s) {
        key.push_back(static_cast<char>(s.size()));
        for (int k = 0; k < s.size(); ++k) key.push_back(key_card(s[k]));
    }

    // The position up to what the rules cannot tell apart:
    // * the eight helps are sorted: every rule treats the positions alike (a marriage onto any
    //   help, filling any empty help); under refill="pack" the waiting helps are filled in index
    //   order at a re-deal, but the helps that result are the same multiset whatever the order
    //   (the next cards of the pack, one each, in turn);
    // * the two foundations of a suit are sorted: both build J, T, ..., A, K in that suit, and a
    //   card goes to the first that fits, so swapping their counts swaps nothing a rule reads;
    // * every queen is one card (key_card above).
    std::string canonical_key() const override {
        std::string key;
        key_put_sorted(key, helps_, [](std::string& k, const auto& pile) { put_pile(k, pile); });
        key.push_back(static_cast<char>(pack_.size()));
        for (int k = 0; k < pack_.size(); ++k) key.push_back(key_card(pack_[k]));
        put_pile(key, talon_);
        for (int f = 0; f < N_FOUNDATIONS; f += 2) {
            key.push_back(static_cast<char>(std::min(found_[f], found_[f + 1])));
            key.push_back(static_cast<char>(std::max(found_[f], found_[f + 1])));
        }
        key.push_back(static_cast<char>(redeals_));
        return key;
    }

    // Card c (talon top or a help top) may go up now and never needs to stay: nothing can ever
    // be married onto it. Marriages put the card of c's suit one rank higher on c; a king takes
    // nothing (no rank above), and a card of rank r <= 10 on foundation f (which then needs r)
    // takes an r + 1 only while a copy of it is off the foundations: f holds one copy, and the
    // other copy is up exactly when the suit's other foundation has got as far (found_[other]
    // >= found_[f]). Then the other copy of c, if any, still fits the other foundation: no race.
    bool never_a_base(int c) const {
        if (rank_of(c) == KING) return true;
        const int f = foundation_for(c), other = f ^ 1;
        return found_[other] >= found_[f];
    }

    // A safe automatic move (solver.hpp): a card that is never a base goes up. With nothing
    // ever put on it, the card only waits to go up (or is married on, or turned, to no gain); a
    // winning line from here, with this card's own moves left out, stays legal and wins after
    // it goes up: every move onto the foundation it fills finds the foundation one card further.
    // Under refill="free" that holds for every help top and the talon top (leaving a help
    // empty only offers a fill; the talon, turned over at a re-deal, makes the same pack less
    // this card). Under refill="pack" an emptied help is refilled from the pack at once (or at
    // the next re-deal) and a talon card comes back in the next pack, which shifts which card
    // fills which help: there only a help top with cards under it, or any top once no pack
    // can come again (pack out, no re-deal left) is played.
    int safe_move() const override {
        const bool pack_final = pack_.empty() && redeals_ >= N_REDEALS;
        for (int i = 0; i < N_HELPS; ++i) {
            const auto& h = helps_[i];
            if (h.empty()) continue;
            const int c = h.back();
            if (foundation_for(c) < 0 || !never_a_base(c)) continue;
            if (!refill_from_pack_ || h.size() >= 2 || pack_final) return HELP_F0 + i;
        }
        if (!talon_.empty()) {
            const int c = talon_.back();
            if (foundation_for(c) >= 0 && never_a_base(c) && (!refill_from_pack_ || redeals_ >= N_REDEALS))
                return TALON_F;
        }
        return -1;
    }

    // Move ordering only (greedy's preferences, agents/heuristics/anna.py): a talon card married
    // onto a help first, then a help emptied by a marriage, then a talon card into an empty help,
    // then turning or re-dealing; a marriage that only moves a card between two helps last.
    int move_priority(int a) const override {
        const Move m = move_of(a);
        switch (m.kind) {
            case Kind::TalonToHelp: return helps_[m.dst].empty() ? 2 : 4;
            case Kind::HelpToHelp: return helps_[m.src].size() == 1 ? 3 : 0;
            case Kind::Turn:
            case Kind::Redeal: return 1;
            default: return 0;
        }
    }

    // The beam search's layers (beam.hpp): the cards taken from the pack in this pass (turned, or
    // under refill="pack" dealt into an empty help), passes (re-deals made) first. Within a pass
    // the pack only shrinks, and a re-deal starts a new pass, so no move lowers the layer.
    int beam_layer() const override { return redeals_ * (PACK_CAP + 1) + (PACK_CAP - pack_.size()); }

    // Among positions that have taken as many cards from the pack: more foundation cards, fewer
    // cards in the talon (a re-deal brings them back only in their order). Ordering only.
    double beam_score() const override { return 2.0 * foundation_cards() - talon_.size(); }


private:
    // configuration
    bool refill_from_pack_;
    // position (anna.py STATE)
    std::array<Stack<HELP_CAP>, N_HELPS> helps_{};
    Stack<PACK_CAP> pack_;  // back() is the next card turned (Python's pack[-1])
    Stack<PACK_CAP> talon_;
    std::array<std::int8_t, N_FOUNDATIONS> found_{};  // cards on each foundation (their cards: rank_at)
    int redeals_ = 0;
};

// anna.Anna.OPTIONS: refill ("free" or "pack").
[[maybe_unused]] const bool registered = register_game(spec, [](const Options& o) -> std::unique_ptr<Game> {
    return std::make_unique<Anna>(o["refill"] == spec.choice("refill", "pack"));
});

}  // namespace

}  // namespace pg

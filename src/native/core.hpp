// The native engine's shared core: the Game contract, cards, fixed-size piles and the factory.
//
// DESIGN
// ======
// The Python rules core (patience_gym/games/*.py) is the readable reference; this engine is a
// second implementation of the same rules, behind the same contract, checked against it in
// lockstep by tests/native/test_native_equivalence.py (mask, observation, reward and info at
// every step of hundreds of random games per option set). What C++ would copy from Python
// (action ids, observation offsets and sizes, option names, observation places, info extras) is
// generated from it into generated/<game>_spec.hpp (scripts/gen_native.py; a test fails while a
// header is stale). Text is Python's alone: a native game's render() and describe() are its
// Python twin's (patience_gym.native.NativeGame.reference), so C++ holds no move text or table
// drawing.
//
// * One C++ class per variant, one source file per game (klondike.cpp, ...), deriving from
//   Port<Itself, spec> below (a Game whose sizes, packs, winning count, clone() and bytes()
//   follow from its generated spec). Each method mirrors the Python method of the same name:
//     deal(pack)          start a game from card ids, first dealt first. The SHUFFLE stays in
//                         Python/numpy (Game.new_game draws rng.permutation), so one seed deals
//                         the same game on both engines.
//     is_legal(a)         the rule, one named predicate per rule (as in Python).
//     legal_mask(out)     n_actions bytes of 0/1; the default asks is_legal of every id, which
//                         in C++ is already fast. An override must call the same predicates.
//     apply(a)            a LEGAL action and every automatic step after it. Callers check
//                         legality first (the Python adapter, the batched stepper); the module
//                         wrapper refuses illegal ids so no input from Python can corrupt a game.
//     foundation_cards()  cards on the foundations (won when it equals win_cards()).
//     observe(out)        write the observation into a ZEROED float buffer of obs_size(). Every
//                         value must be the float32 Python stores: compute in double exactly as
//                         Python does (d / 6.0), then cast (numpy rounds a Python float the same).
//     unobserve(out)      zero what observe() wrote for the current position (default: all of
//                         it), so the batched stepper can rewrite a row by diff;
//                         unobserve_move(a, out) / observe_move(a, out) the same around one move.
//     cards_in_play()     every card the game holds (conservation checks).
//     state_key()         the whole position as bytes (equal bytes: same position).
//     clone(), bytes()    an independent copy (plain value semantics: games hold no pointers),
//                         and sizeof the game: the batched engine's memory per game (Port).
//     extra_names()/extra_values(out)  the variant's info extras as integers; Python decodes
//                         the ones that are texts (see patience_gym/native.py, EXTRA_TEXTS).
// * Options arrive by name, validated by Python (Game(**options): one set of checks and messages
//   for both engines), each an int64: bool 0/1, None -1, an int as itself, a text as its index
//   in the Option's choices (spec.choice("deal", "dick") names those codes). C++ does not check
//   them again; a name missing or unknown is a programming error (std::logic_error). A factory
//   per game reads them by name into a Game; the table in registry.cpp maps the Python class
//   name to that factory and the option names it takes.
// * State lives in fixed-capacity arrays (Stack<N> below): a game is one flat object, cloning is a
//   memberwise copy and the batched stepper keeps n of them without touching the heap per step.
// * BatchedGames (batched.hpp) steps n games of one variant in one call with the GIL released,
//   with PatienceEnv's rewards, illegal-action penalty, step limit and Gymnasium 1.x NEXT_STEP
//   autoreset (packs for the games to reset are shuffled in Python, one numpy Generator per env).
//
// Nothing here knows about Python: module.cpp is the only file that includes nanobind.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <typeinfo>
#include <utility>
#include <vector>

#include "spec.hpp"

namespace pg {

// ---- cards (patience_gym/core/cards.py) ----------------------------------------------------
// A card is suit * 13 + (rank - 1), suits C D H S, ranks ace = 1 .. king = 13: ids 0..51.
constexpr int N_KINDS = 52;
constexpr int ACE = 1;
constexpr int KING = 13;

constexpr int rank_of(int c) { return c % 13 + 1; }
constexpr int suit_of(int c) { return c / 13; }
constexpr bool is_red(int c) { return suit_of(c) == 1 || suit_of(c) == 2; }
constexpr int card_of(int rank, int suit) { return suit * 13 + rank - 1; }

// What a step that applies nothing (an illegal or out-of-range id) reports as cards gained: no
// move changes the foundations by this much (a legal one may lose a card: worrying_back).
// patience_gym.native.ILLEGAL_GAIN is the same number (a test compares them).
constexpr int ILLEGAL_GAIN = -1000;

// "TD", as core.cards.NAME.
inline std::string card_name(int c) {
    static const char RANKS[] = "A23456789TJQK";
    static const char SUITS[] = "CDHS";
    return std::string{RANKS[c % 13], SUITS[c / 13]};
}

// vocabulary.ALTERNATE_DOWN: c goes on base when one rank lower and of the other colour.
constexpr bool alternate_down(int base, int c) {
    return is_red(base) != is_red(c) && rank_of(c) == rank_of(base) - 1;
}

// ---- moves (patience_gym/core/moves.py) ---------------------------------------------------------
// One entry of a variant's action table: its kind (the variant's enum, as Python's Kind) and up
// to two place indices (-1: none). Each port decodes an action id into one (move_of).
template <class Kind>
struct Move {
    Kind kind;
    int src, dst;
};

// ---- fixed-capacity piles ---------------------------------------------------------------------
// A pile of at most N cards, stored inline (no heap): cards[0] is the bottom, back() the top, as
// a Python list whose [-1] is the top card.
template <int N>
struct Stack {
    std::array<std::int8_t, N> cards{};
    std::int16_t n = 0;

    int size() const { return n; }
    bool empty() const { return n == 0; }
    int operator[](int i) const { return cards[i]; }
    int back() const { return cards[n - 1]; }
    void push(int c) {
        if (n >= N) throw std::logic_error("pile overflow");  // a rules bug, never user input
        cards[n++] = static_cast<std::int8_t>(c);
    }
    int pop() { return cards[--n]; }
    void clear() { n = 0; }
    void truncate(int k) { n = static_cast<std::int16_t>(k); }
    // The cards bottom to top onto the end of out (cards_in_play()).
    void append_to(std::vector<int>& out) const { out.insert(out.end(), cards.begin(), cards.begin() + n); }
};

// patience_gym/core/pile_rows.py: a depth d (cards lying on a card) reads d / (d + 8), computed in
// double and rounded once, as Python's float -> numpy float32.
inline float depth_value(int d) { return static_cast<float>(d / (d + 8.0)); }

// pile_rows.py's rows of one pile (bottom first), written into ZEROED rows of N_KINDS: copies / 2,
// the depth of the uppermost copy, and of the lower copy when the pile holds both. Bottom to top,
// so the uppermost copy's depth is written last.
template <class Pile>
void pile_rows(const Pile& pile, float* held, float* depth, float* lower) {
    const int n = pile.size();
    for (int k = 0; k < n; ++k) {
        const int c = pile[k];
        if (held[c] != 0.0f) lower[c] = depth[c];  // the second copy: the first one is the lower
        held[c] += 0.5f;
        depth[c] = depth_value(n - 1 - k);
    }
}

// Every pile of piles (an array of Stack), in order, bottom to top, onto the end of out.
template <class Piles>
void append_cards(std::vector<int>& out, const Piles& piles) {
    for (const auto& pile : piles) pile.append_to(out);
}

// ---- the contract -----------------------------------------------------------------------------
class Game {
public:
    virtual ~Game() = default;

    virtual int n_actions() const = 0;
    virtual int obs_size() const = 0;
    virtual int win_cards() const = 0;
    virtual int n_packs() const { return 1; }

    virtual void deal(const std::vector<int>& pack) = 0;
    virtual bool is_legal(int action) const = 0;
    virtual void legal_mask(std::uint8_t* out) const {
        for (int a = 0; a < n_actions(); ++a) out[a] = is_legal(a) ? 1 : 0;
    }
    virtual void apply(int action) = 0;
    virtual int foundation_cards() const = 0;
    virtual void observe(float* out) const = 0;
    // Zero every value observe() wrote for the current position, so that after a move observe()
    // may write into the same buffer again: the batched stepper rewrites a game's observation
    // row by this diff instead of clearing it whole. The default clears the whole buffer; a game
    // whose observation is large and sparse (Babette's garden) zeroes only the cells it set.
    virtual void unobserve(float* out) const {
        std::memset(out, 0, sizeof(float) * static_cast<std::size_t>(obs_size()));
    }
    // The same diff for one move: unobserve_move(a, out) before apply(a) zeroes what the move may
    // change, observe_move(a, out) after it writes that anew; together they leave out as
    // observe() of the new position would. Defaults: unobserve() and observe() in full.
    virtual void unobserve_move(int /*action*/, float* out) const { unobserve(out); }
    virtual void observe_move(int /*action*/, float* out) const { observe(out); }
    virtual std::vector<int> cards_in_play() const = 0;
    virtual std::string state_key() const = 0;
    virtual std::unique_ptr<Game> clone() const = 0;
    // Become a copy of `other`, a game of the same variant and options (a search reusing one
    // game per depth instead of allocating a clone per position).
    virtual void assign(const Game& other) = 0;
    // Bytes one game occupies (its state is inline): sizeof(*this) in every variant.
    virtual std::size_t bytes() const = 0;
    virtual std::vector<std::string> extra_names() const { return {}; }
    virtual void extra_values(std::int64_t* /*out*/) const {}

    // ---- the solver's hooks (solver.hpp); each default is exact, an override must stay SAFE --
    // The position up to what the rules cannot tell apart (interchangeable piles, say): two
    // positions with equal canonical keys must be won or lost alike. Default: the whole state.
    virtual std::string canonical_key() const { return state_key(); }
    // A 64-bit hash of canonical_key(), which is all the solver stores. Default: std::hash of the
    // key. A variant may compute it without building the string; positions with equal canonical
    // keys must get equal hashes (so it collapses at most what the key collapses, up to 64-bit
    // collisions).
    virtual std::uint64_t canonical_hash() const {
        const std::string key = canonical_key();
        return std::hash<std::string>{}(key);
    }
    // The hash the solver stores with its dominances on (solver.hpp): canonical_hash(), or one
    // that also collapses positions a proven dominance shows are won or lost alike (the proof
    // written where it is overridden). Default: canonical_hash().
    virtual std::uint64_t solver_hash() const { return canonical_hash(); }
    // A legal action the solver may play at once, trying nothing else from this position,
    // because it never turns a won position into a lost one (a provably safe automatic move,
    // documented where it is overridden). Default: none (-1), every legal move is tried.
    virtual int safe_move() const { return -1; }
    // A position from which no line of play can win, provably (the proof written where it is
    // overridden): the solver searches nothing behind it. Default: none.
    virtual bool dead() const { return false; }
    // A position from which every line of sensible play wins, provably (the proof written where
    // it is overridden): a search may count it won without playing it out. Default: none. The
    // macro planner's capped solves count it won (macro.hpp); the solver, with its dominances on,
    // stops its search there and plays the win out with a small search of its own (solver.cpp).
    virtual bool sure_win() const { return false; }
    // Cards dealt face down and not turned up yet (Klondike's piles; 0 where a variant has none):
    // the progress a capped search makes short of the foundations (macro.hpp, `dig`).
    virtual int face_down_cards() const { return 0; }
    // Move ordering only (never pruning): a larger value is tried first. Default: the solver's
    // own order (moves that win cards first, then the table's order).
    virtual int move_priority(int /*action*/) const { return 0; }
    // The solver's moves from this position, each a LINE of one or more legal actions played in
    // order (a macro move: say, turning the stock until a card shows and playing it) with its
    // ordering priority. Default: every legal action alone, with move_priority(). An override
    // must keep every win: each winning line of play must be rewritable as a sequence of these
    // moves (documented where it is overridden). safe_move(), when it names an action, still
    // comes first and alone.
    struct SolverMove {
        std::vector<int> actions;
        int priority = 0;
    };
    virtual void solver_moves(std::vector<SolverMove>& out) const {
        std::vector<std::uint8_t> mask(static_cast<std::size_t>(n_actions()));
        legal_mask(mask.data());
        for (int a = 0; a < n_actions(); ++a)
            if (mask[static_cast<std::size_t>(a)]) out.push_back({{a}, move_priority(a)});
    }
    // The solver's moves less those a PROVEN DOMINANCE makes unnecessary: every position from
    // which a win exists must still have a winning line made of these moves alone (the proof
    // written where it is overridden). Only the solver asks it, and only with its dominances on
    // (solver.hpp: use_dominances). Default: solver_moves().
    virtual void solver_moves_pruned(std::vector<SolverMove>& out) const { solver_moves(out); }
    // True where solver_moves_pruned() prunes (an override whose dominances apply in this
    // position's rules): the macro planner's capped searches may then search with them
    // (MacroSettings::dominances) instead of planner_moves(). Default: false.
    virtual bool prunes_solver_moves() const { return false; }
    // The macro planner's moves (macro.hpp): the solver's moves less those a player would seldom
    // need, for its many small capped searches. NOT safe: a variant may drop moves that some
    // winning line needs, so only a search whose answer is an estimate may use them (the solver
    // never does). Default: solver_moves().
    virtual void planner_moves(std::vector<SolverMove>& out) const { solver_moves(out); }
    // True when planner_moves()' priorities already rank a move that wins cards above one that
    // does not (as the solver's ordering does by playing each move first): the planner's capped
    // searches may then play a move only when they try it, instead of every move up front.
    virtual bool planner_moves_ranked() const { return false; }
    // planner_moves() as one flat list that allocates nothing once warm (the capped searches ask
    // for it at every position): move i is acts[start[i]] .. acts[start[i + 1] - 1], with prio[i].
    struct MoveList {
        std::vector<int> acts, start{0}, prio;
        void clear() {
            acts.clear();
            start.resize(1);
            prio.clear();
        }
        void add(const int* a, int n, int priority) {
            if (n == 1) {
                acts.push_back(*a);
            } else {
                acts.insert(acts.end(), a, a + n);
            }
            start.push_back(static_cast<int>(acts.size()));
            prio.push_back(priority);
        }
        int size() const { return static_cast<int>(prio.size()); }
    };
    virtual void planner_moves_flat(MoveList& out) const {
        std::vector<SolverMove> moves;
        planner_moves(moves);
        for (const auto& m : moves) out.add(m.actions.data(), static_cast<int>(m.actions.size()), m.priority);
    }
    // solver_moves_pruned() as one flat list, for the capped searches with the dominances on
    // (MacroSettings::dominances); ranked as planner_moves_flat() where planner_moves_ranked().
    virtual void solver_moves_pruned_flat(MoveList& out) const {
        std::vector<SolverMove> moves;
        solver_moves_pruned(moves);
        for (const auto& m : moves) out.add(m.actions.data(), static_cast<int>(m.actions.size()), m.priority);
    }

    // The layered beam search's hooks (beam.hpp). beam_layer(): a number that no move ever
    // decreases (the cards taken from the pack so far, say); -1, the default, when the variant
    // has none (the beam search refuses it). beam_score(): how promising a position is among
    // those of its layer, higher first; ordering only, so any value is safe. Default: the
    // foundation cards.
    virtual int beam_layer() const { return -1; }
    virtual double beam_score() const { return foundation_cards(); }

    bool won() const { return foundation_cards() == win_cards(); }
    // Game.is_over: won, or no legal move left.
    bool is_over() const {
        if (won()) return true;
        std::vector<std::uint8_t> mask(static_cast<std::size_t>(n_actions()));
        legal_mask(mask.data());
        for (std::uint8_t m : mask)
            if (m) return false;
        return true;
    }
    // Checked entry points for callers outside the engine (Python): never undefined behaviour.
    void checked_deal(const std::vector<int>& pack);
    void checked_apply(int action);
};

// Options by name, as patience_gym.native.encode_options sends them (see DESIGN above).
class Options {
public:
    Options() = default;
    explicit Options(std::map<std::string, std::int64_t> values) : values_(std::move(values)) {}
    // The value of option `name`; asking for one that was not passed is a bug in the port.
    std::int64_t operator[](const char* name) const;
    const std::map<std::string, std::int64_t>& values() const { return values_; }

private:
    std::map<std::string, std::int64_t> values_;
};

// A game from its options (by name, complete: make_game has checked the names).
using Factory = std::unique_ptr<Game> (*)(const Options& options);

struct GameEntry {
    std::string name;                 // the Python class name ("Klondike")
    Factory factory;
    std::vector<std::string> options;  // its option names, in the Python OPTIONS order
};

// The factory table (registry.cpp), sorted by name.
const std::vector<GameEntry>& factories();

// Each game file registers its factory itself (register_game(spec, factory) below, with the
// names of its generated header), so adding a game is adding one file (CMakeLists.txt compiles
// every src/native/*.cpp).
bool register_game(const char* name, Factory factory, std::vector<std::string> options);
// The game of Python class `name`: std::invalid_argument for a game without a port,
// std::logic_error for options whose names are not exactly the game's.
std::unique_ptr<Game> make_game(const std::string& name, const Options& options);

// What a port owes that follows from its generated spec (spec.hpp) and its own type: the sizes
// and the info extras' names Python declares, a copy, and the bytes of one game. Each game class derives from it:
//     class Klondike final : public Port<Klondike, spec> { ... };
template <class Derived, const auto& Spec>
class Port : public Game {
public:
    // The spec's table is the widest of any option value; a port whose table is shorter under some
    // options (move kinds that only an option appends: Klondike's worrying_back) overrides this.
    int n_actions() const override { return Spec.n_actions(); }
    // The spec's layout is the widest of any option value; a port whose layout is narrower under
    // some options (segments that only an option appends: Klondike's stock="known") overrides this.
    int obs_size() const override { return Spec.obs_size(); }
    int win_cards() const final { return Spec.win_cards; }
    int n_packs() const final { return Spec.n_packs; }
    std::unique_ptr<Game> clone() const final {
        return std::make_unique<Derived>(static_cast<const Derived&>(*this));
    }
    void assign(const Game& other) final {
        // the searches assign a position at every node: a type check, not a dynamic_cast
        if (typeid(other) != typeid(Derived)) throw std::logic_error("assign: a game of another variant");
        static_cast<Derived&>(*this) = static_cast<const Derived&>(other);
    }
    std::size_t bytes() const final { return sizeof(Derived); }
    // extra_values(out) writes out[spec.extra(name)] for each of these.
    std::vector<std::string> extra_names() const final { return {Spec.extras.begin(), Spec.extras.end()}; }
};

// Register a port under its spec's name and option names, with its factory (a function or a
// lambda without captures). In the game's file:
//     [[maybe_unused]] const bool registered = register_game(spec, [](const Options& o) { ... });
template <class Spec>
bool register_game(const Spec& spec, Factory factory) {
    return register_game(spec.name, factory, std::vector<std::string>(spec.options.begin(), spec.options.end()));
}

// Helpers for state_key(): append raw bytes of small values and piles.
inline void key_put(std::string& key, int v) {
    key.append(reinterpret_cast<const char*>(&v), sizeof v);
}
template <int N>
void key_put(std::string& key, const Stack<N>& s) {
    key.push_back(static_cast<char>(s.n));
    key.append(reinterpret_cast<const char*>(s.cards.data()), static_cast<std::size_t>(s.n));
}
template <class T, std::size_t N>
void key_put(std::string& key, const std::array<T, N>& parts) {
    for (const T& part : parts) key_put(key, part);
}
// Piles that the rules treat alike, as a multiset (a canonical_key() part: permuting such piles
// permutes the moves and nothing else): each pile's key by put (key_put unless told), sorted.
template <class Piles, class Put>
void key_put_sorted(std::string& key, const Piles& piles, Put put) {
    std::array<std::string, std::tuple_size<Piles>::value> parts;
    for (std::size_t i = 0; i < parts.size(); ++i) put(parts[i], piles[i]);
    std::sort(parts.begin(), parts.end());
    for (const auto& part : parts) key += part;
}
// Hashing positions without building their keys (Game::canonical_hash overrides): splitmix64's
// finaliser (a bijection), and a stack's cards, eight to a mix, after its size and a seed.
inline std::uint64_t hash_mix(std::uint64_t h) {
    h ^= h >> 30;
    h *= 0xBF58476D1CE4E5B9ULL;
    h ^= h >> 27;
    h *= 0x94D049BB133111EBULL;
    return h ^ (h >> 31);
}
template <class S>
std::uint64_t hash_stack(const S& s, std::uint64_t seed) {
    std::uint64_t h = hash_mix(seed ^ (static_cast<std::uint64_t>(s.size()) << 40)), w = 0;
    for (int k = 0; k < s.size(); ++k) {
        w = (w << 8) | static_cast<std::uint8_t>(s[k]);
        if ((k & 7) == 7) h = hash_mix(h ^ w), w = 0;
    }
    return hash_mix(h ^ w ^ 0xA5);
}
template <class Piles>
void key_put_sorted(std::string& key, const Piles& piles) {
    key_put_sorted(key, piles, [](std::string& k, const auto& pile) { key_put(k, pile); });
}
// The whole position as one key, part after part (ints, piles, arrays of either): state_key().
template <class... Parts>
std::string key_of(const Parts&... parts) {
    std::string key;
    (key_put(key, parts), ...);
    return key;
}

}  // namespace pg

// patience_gym._native: the nanobind module. The only file that knows about Python.
//
// Python sees two classes: Game (one game, wrapped by patience_gym.native.NativeGame into the
// Python Game contract) and BatchedGames (n games, driven by patience_gym.vector). Arrays are
// numpy arrays the caller owns, written in place; shapes and dtypes are checked here, so a wrong
// call raises instead of writing out of bounds. C++ exceptions become Python exceptions:
// std::invalid_argument -> ValueError, std::out_of_range -> IndexError.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/vector.h>

#include "batched.hpp"
#include "beam.hpp"
#include "core.hpp"
#include "macro.hpp"
#include "move_features.hpp"
#include "rollout.hpp"
#include "solver.hpp"
#include "uct.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace {

template <typename T>
using Vec = nb::ndarray<T, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
template <typename T>
using Mat = nb::ndarray<T, nb::ndim<2>, nb::c_contig, nb::device::cpu>;

void check_action(const pg::Game& g, int a) {
    if (a < 0 || a >= g.n_actions())
        throw std::out_of_range("action " + std::to_string(a) + " is outside 0.." + std::to_string(g.n_actions() - 1));
}

template <typename A>
void check_len(const char* what, const A& arr, std::size_t n) {
    if (arr.shape(0) != n)
        throw std::invalid_argument(std::string(what) + " must have length " + std::to_string(n) + ", got " +
                                    std::to_string(arr.shape(0)));
}

template <typename A>
void check_mat(const char* what, const A& arr, std::size_t n, std::size_t m) {
    if (arr.shape(0) != n || arr.shape(1) != m)
        throw std::invalid_argument(std::string(what) + " must have shape (" + std::to_string(n) + ", " +
                                    std::to_string(m) + "), got (" + std::to_string(arr.shape(0)) + ", " +
                                    std::to_string(arr.shape(1)) + ")");
}

// The output arrays of BatchedGames.reset/step, checked against the batch's sizes.
struct Outputs {
    Mat<float> obs;
    Mat<bool> mask;
    Vec<double> reward;
    Vec<bool> terminated, truncated, won, illegal;
    Vec<std::int64_t> found;
    Mat<std::int64_t> extras;

    pg::StepBuffers check(const pg::BatchedGames& b) const {
        const auto n = static_cast<std::size_t>(b.size());
        check_mat("obs", obs, n, static_cast<std::size_t>(b.obs_size()));
        check_mat("mask", mask, n, static_cast<std::size_t>(b.n_actions()));
        check_len("reward", reward, n);
        check_len("terminated", terminated, n);
        check_len("truncated", truncated, n);
        check_len("won", won, n);
        check_len("illegal", illegal, n);
        check_len("found", found, n);
        check_mat("extras", extras, n, b.extra_names().size());
        auto u8 = [](const Vec<bool>& v) { return reinterpret_cast<std::uint8_t*>(v.data()); };
        return {obs.data(),     reinterpret_cast<std::uint8_t*>(mask.data()),
                reward.data(),  u8(terminated),
                u8(truncated),  u8(won),
                u8(illegal),    found.data(),
                extras.data()};
    }
};

// PatienceEnv.step on one native game in one call (patience_gym.env's native path): the env's
// own mask (int8, 0/1) and observation buffers are bound once and rewritten in place, and the
// env hands out copies of them, so a step costs one crossing into C++ instead of four (apply,
// mask, is_over, observe) plus fresh arrays made by hand.
struct Stepper {
    pg::Game* game;  // kept alive by the binding (keep_alive): owned by the Python Game object
    Vec<std::int8_t> mask;
    Vec<float> obs;

    Stepper(pg::Game& g, Vec<std::int8_t> mask_, Vec<float> obs_) : game(&g), mask(mask_), obs(obs_) {
        check_len("mask", mask, static_cast<std::size_t>(g.n_actions()));
        check_len("observation", obs, static_cast<std::size_t>(g.obs_size()));
    }

    // PatienceEnv._refresh and _observation: the mask (all zero once won, as the env has it) and
    // the observation of the position; true while some move is legal (the episode is live).
    bool refresh() const {
        auto* m = reinterpret_cast<std::uint8_t*>(mask.data());
        const auto n = static_cast<std::size_t>(game->n_actions());
        bool live = false;
        if (game->won()) {
            std::memset(m, 0, n);
        } else {
            game->legal_mask(m);
            for (std::size_t a = 0; a < n && !live; ++a) live = m[a] != 0;
        }
        std::memset(obs.data(), 0, sizeof(float) * static_cast<std::size_t>(game->obs_size()));
        game->observe(obs.data());
        return live;
    }

    // A legal action applied, then refresh(): (cards gained, won, live). (ILLEGAL_GAIN, False,
    // False) for an illegal or out-of-range id, with nothing changed (the env then takes its
    // illegal path). Cards gained may be -1: Klondike's worrying_back brings one down.
    nb::tuple step(std::int64_t a) const {
        if (a < 0 || a >= game->n_actions() || !game->is_legal(static_cast<int>(a)))
            return nb::make_tuple(pg::ILLEGAL_GAIN, false, false);
        const int before = game->foundation_cards();
        game->apply(static_cast<int>(a));
        const bool live = refresh();
        return nb::make_tuple(game->foundation_cards() - before, game->won(), live);
    }
};

// The variant's side of the move features, as patience_gym.move_features builds it: per action
// its fixed columns, and the observation indices that count unseen cards.
pg::MoveFeatureSpec feature_spec(int n_actions, int obs_size, const Mat<float>& fixed, const Vec<std::int32_t>& hidden) {
    check_mat("fixed columns", fixed, static_cast<std::size_t>(n_actions), static_cast<std::size_t>(pg::N_FIXED));
    pg::MoveFeatureSpec spec;
    spec.fixed.assign(fixed.data(), fixed.data() + fixed.size());
    spec.hidden.assign(hidden.data(), hidden.data() + hidden.size());
    for (int k : spec.hidden)
        if (k < 0 || k >= obs_size) throw std::out_of_range("unseen-card index " + std::to_string(k) + " is outside the observation");
    return spec;
}

using Block = nb::ndarray<float, nb::ndim<3>, nb::c_contig, nb::device::cpu>;

}  // namespace

NB_MODULE(_native, m) {
    m.attr("ILLEGAL_GAIN") = pg::ILLEGAL_GAIN;
    m.doc() = "The native (C++) rules engine of patience-gym; see src/native/core.hpp for the design.";

    m.def(
        "games",
        [] {
            std::vector<std::string> names;
            for (const auto& entry : pg::factories()) names.push_back(entry.name);
            return names;
        },
        "The Python class names of the games this build has a native engine for.");

    nb::class_<pg::Game>(m, "Game")
        .def_static(
            "make",
            [](const std::string& name, std::map<std::string, std::int64_t> options) {
                return pg::make_game(name, pg::Options(std::move(options)));
            },
            "name"_a, "options"_a,
            "A game of the Python class ``name``; ``options``: every option by name, validated and encoded "
            "as ints by patience_gym.native.encode_options.")
        .def_prop_ro("n_actions", &pg::Game::n_actions)
        .def_prop_ro("obs_size", &pg::Game::obs_size)
        .def_prop_ro("win_cards", &pg::Game::win_cards)
        .def_prop_ro("n_packs", &pg::Game::n_packs)
        .def_prop_ro("bytes", &pg::Game::bytes)
        .def("deal", &pg::Game::checked_deal, "pack"_a)
        .def(
            "is_legal",
            [](const pg::Game& g, int a) {
                check_action(g, a);
                return g.is_legal(a);
            },
            "action"_a)
        .def(
            "legal_mask",
            [](const pg::Game& g, Vec<bool> out) {
                check_len("mask", out, static_cast<std::size_t>(g.n_actions()));
                g.legal_mask(reinterpret_cast<std::uint8_t*>(out.data()));
            },
            "out"_a.noconvert(), "Write the legal actions into the bool array ``out``.")
        .def(
            "mask",
            [](const pg::Game& g) {
                // A new numpy bool array in one call (Game.legal_mask's fast path).
                const auto n = static_cast<std::size_t>(g.n_actions());
                auto* data = new bool[n];
                g.legal_mask(reinterpret_cast<std::uint8_t*>(data));
                nb::capsule owner(data, [](void* p) noexcept { delete[] static_cast<bool*>(p); });
                return nb::ndarray<nb::numpy, bool, nb::ndim<1>>(data, {n}, owner);
            },
            "A new bool array of the legal actions.")
        .def("apply", &pg::Game::checked_apply, "action"_a)
        .def(
            "play",
            [](pg::Game& g, std::int64_t a) -> std::pair<int, bool> {
                // Game.apply's fast path: one call that applies a legal action and says what it
                // changed (cards gained, won); (ILLEGAL_GAIN, False) for an illegal or out-of-range id.
                if (a < 0 || a >= g.n_actions() || !g.is_legal(static_cast<int>(a))) return {pg::ILLEGAL_GAIN, false};
                const int before = g.foundation_cards();
                g.apply(static_cast<int>(a));
                return {g.foundation_cards() - before, g.won()};
            },
            "action"_a)
        .def_prop_ro("won", &pg::Game::won)
        .def("is_over", &pg::Game::is_over)
        .def_prop_ro("foundation_cards", &pg::Game::foundation_cards)
        .def(
            "observe",
            [](const pg::Game& g, Vec<float> out) {
                check_len("observation", out, static_cast<std::size_t>(g.obs_size()));
                g.observe(out.data());
            },
            "out"_a.noconvert(), "Write the observation into the ZEROED float32 array ``out``.")
        .def("cards_in_play", &pg::Game::cards_in_play)
        .def("state_key", [](const pg::Game& g) {
            const std::string key = g.state_key();
            return nb::bytes(key.data(), key.size());
        })
        .def("canonical_key", [](const pg::Game& g) {  // the solver's key (solver.hpp), for tests
            const std::string key = g.canonical_key();
            return nb::bytes(key.data(), key.size());
        })
        .def("canonical_hash", &pg::Game::canonical_hash)  // the solver's hash of that key, for tests
        .def("solver_hash", &pg::Game::solver_hash)        // the same with the dominances (core.hpp), for tests
        .def(
            "move_features",
            [](const pg::Game& g, Mat<float> fixed, Vec<std::int32_t> hidden, bool has_previous,
               std::uint64_t previous, Mat<float> out) {
                check_mat("features", out, static_cast<std::size_t>(g.n_actions()), pg::MOVE_FEATURES);
                const pg::MoveFeatureSpec spec = feature_spec(g.n_actions(), g.obs_size(), fixed, hidden);
                pg::MoveFeatureScratch scratch;
                pg::move_features(g, spec, has_previous, previous, out.data(), scratch);
            },
            "fixed"_a, "hidden"_a, "has_previous"_a, "previous"_a, "out"_a.noconvert(),
            "The move features of this position into the float32 (n_actions, K) array ``out`` "
            "(move_features.hpp); ``previous``: the canonical hash before the last move, if ``has_previous``.")
        .def("move_priority", [](const pg::Game& g, int a) {  // the solver's ordering (core.hpp)
            check_action(g, a);
            return g.move_priority(a);
        }, "action"_a)
        .def("safe_move", &pg::Game::safe_move)
        .def("beam_layer", &pg::Game::beam_layer)  // the beam search's layer (beam.hpp), for tests
        .def("dead", &pg::Game::dead)              // the solver's dead-position test (core.hpp), for tests
        .def("clone", &pg::Game::clone)
        .def("extra_names", &pg::Game::extra_names)
        .def("extra_values",
             [](const pg::Game& g) {
                 std::vector<std::int64_t> values(g.extra_names().size());
                 g.extra_values(values.data());
                 return values;
             })
        .def("extra_info", [](const pg::Game& g) {
            // name -> int in one call (the env asks for it every step)
            const auto names = g.extra_names();
            std::vector<std::int64_t> values(names.size());
            g.extra_values(values.data());
            nb::dict info;
            for (std::size_t k = 0; k < names.size(); ++k) info[names[k].c_str()] = values[k];
            return info;
        });

    nb::class_<pg::BatchedGames>(m, "BatchedGames")
        .def(
            "__init__",
            [](pg::BatchedGames* b, const std::string& name, std::map<std::string, std::int64_t> options, int n,
               int reward_mode, double illegal_reward, int max_steps) {
                new (b) pg::BatchedGames(name, pg::Options(std::move(options)), n, reward_mode, illegal_reward,
                                         max_steps);
            },
            "name"_a, "options"_a, "n"_a, "reward_mode"_a, "illegal_reward"_a, "max_steps"_a)
        .def_prop_ro("size", &pg::BatchedGames::size)
        .def_prop_ro("n_actions", &pg::BatchedGames::n_actions)
        .def_prop_ro("obs_size", &pg::BatchedGames::obs_size)
        .def_prop_ro("pack_size", &pg::BatchedGames::pack_size)
        .def_prop_ro("extra_names", &pg::BatchedGames::extra_names)
        .def_prop_ro("bytes_per_game", &pg::BatchedGames::bytes_per_game)
        .def(
            "reset",
            [](pg::BatchedGames& b, Mat<std::int32_t> packs, Vec<bool> rows, const Outputs& out) {
                const auto n = static_cast<std::size_t>(b.size());
                check_mat("packs", packs, n, static_cast<std::size_t>(b.pack_size()));
                check_len("reset rows", rows, n);
                const pg::StepBuffers buf = out.check(b);
                nb::gil_scoped_release release;
                b.reset(packs.data(), reinterpret_cast<const std::uint8_t*>(rows.data()), buf);
            },
            "packs"_a, "rows"_a, "out"_a)
        .def(
            "step",
            [](pg::BatchedGames& b, Vec<std::int64_t> actions, Mat<std::int32_t> packs, Vec<bool> rows,
               const Outputs& out) {
                const auto n = static_cast<std::size_t>(b.size());
                check_len("actions", actions, n);
                check_mat("packs", packs, n, static_cast<std::size_t>(b.pack_size()));
                check_len("reset rows", rows, n);
                const pg::StepBuffers buf = out.check(b);
                nb::gil_scoped_release release;
                b.step(actions.data(), packs.data(), reinterpret_cast<const std::uint8_t*>(rows.data()), buf);
            },
            "actions"_a, "packs"_a, "rows"_a, "out"_a)
        .def(
            "sample_legal",
            [](pg::BatchedGames& b, Mat<bool> mask, Vec<std::int64_t> out) {
                const auto n = static_cast<std::size_t>(b.size());
                check_mat("mask", mask, n, static_cast<std::size_t>(b.n_actions()));
                check_len("actions", out, n);
                nb::gil_scoped_release release;
                b.sample_legal(reinterpret_cast<const std::uint8_t*>(mask.data()), out.data());
            },
            "mask"_a, "out"_a.noconvert(), "A random legal action per game (0 where none) into ``out``.")
        .def("seed_sampler", &pg::BatchedGames::seed_sampler, "seed"_a)
        .def(
            "set_move_features",
            [](pg::BatchedGames& b, Mat<float> fixed, Vec<std::int32_t> hidden) {
                b.set_move_features(feature_spec(b.n_actions(), b.obs_size(), fixed, hidden));
            },
            "fixed"_a, "hidden"_a,
            "Turn the move features on (move_features.hpp): each game keeps its position before its last move.")
        .def(
            "move_features",
            [](pg::BatchedGames& b, Vec<bool> rows, Block out) {
                const auto n = static_cast<std::size_t>(b.size());
                check_len("rows", rows, n);
                if (out.shape(0) != n || out.shape(1) != static_cast<std::size_t>(b.n_actions()) ||
                    out.shape(2) != static_cast<std::size_t>(pg::MOVE_FEATURES))
                    throw std::invalid_argument("features must have shape (n, n_actions, K)");
                nb::gil_scoped_release release;
                b.move_features(reinterpret_cast<const std::uint8_t*>(rows.data()), out.data());
            },
            "rows"_a, "out"_a.noconvert(), "The move features of the games of ``rows`` into ``out`` (n, n_actions, K).")
        .def(
            "game",
            [](pg::BatchedGames& b, int i) {
                if (i < 0 || i >= b.size()) throw std::out_of_range("no game " + std::to_string(i));
                return b.game(i).clone();
            },
            "i"_a, "A copy of game ``i`` (for inspection and tests).")
        .def("record", &pg::BatchedGames::record, "on"_a,
             "Keep each game's actions since its deal (off by default), for history().")
        .def(
            "history",
            [](const pg::BatchedGames& b, int i, std::size_t since) {
                if (i < 0 || i >= b.size()) throw std::out_of_range("no game " + std::to_string(i));
                const auto& played = b.played(i);
                const std::vector<int> tail(played.begin() + static_cast<std::ptrdiff_t>(std::min(since, played.size())),
                                            played.end());
                return std::make_pair(b.deals(i), tail);
            },
            "i"_a, "since"_a = 0,
            "(deals so far, the actions since the last deal from index ``since`` on) of game ``i``, as record() "
            "kept them: its Python twin replays them for the text (patience_gym.native.RowTwins).");

    nb::class_<Outputs>(m, "Outputs")
        .def(nb::init<Mat<float>, Mat<bool>, Vec<double>, Vec<bool>, Vec<bool>, Vec<bool>, Vec<bool>,
                      Vec<std::int64_t>, Mat<std::int64_t>>(),
             // noconvert: an array of another dtype must be refused, not silently copied (the
             // writes would land in the copy).
             "obs"_a.noconvert(), "mask"_a.noconvert(), "reward"_a.noconvert(), "terminated"_a.noconvert(),
             "truncated"_a.noconvert(), "won"_a.noconvert(), "illegal"_a.noconvert(), "found"_a.noconvert(),
             "extras"_a.noconvert(), "The caller's output arrays, bound once and written by every reset and step.");

    m.def(
        "move_feature_names",
        [] { return std::vector<std::string>(pg::MOVE_FEATURE_NAMES.begin(), pg::MOVE_FEATURE_NAMES.end()); },
        "The move features' column names, in order (move_features.hpp).");

    m.def(
        "solver_hooks", [](bool on) { pg::use_hooks = on; }, "on"_a,
        "Use the variants' solver hooks (True, the default) or the exact defaults (False): for tests.");

    nb::class_<pg::LostTable>(m, "LostTable",
                              "Positions proven lost by earlier solves of one deal (solver.hpp), kept between them.")
        .def(nb::init<>())
        .def("__len__", &pg::LostTable::size);

    m.def(
        "solve",
        [](const pg::Game& g, std::int64_t max_nodes, double max_seconds, std::int64_t probe_nodes, bool dominances,
           pg::LostTable* table) {
            if (max_nodes <= 0) throw std::invalid_argument("max_nodes must be positive, got " + std::to_string(max_nodes));
            if (probe_nodes < 0)
                throw std::invalid_argument("probe_nodes must be >= 0, got " + std::to_string(probe_nodes));
            pg::SolveResult r;
            {
                nb::gil_scoped_release release;
                r = pg::solve(g, static_cast<std::uint64_t>(max_nodes), max_seconds,
                              pg::SolveOptions{static_cast<std::uint64_t>(probe_nodes), dominances, table});
            }
            static const char* const VERDICTS[] = {"unknown", "won", "lost"};
            return nb::make_tuple(VERDICTS[static_cast<int>(r.verdict)], r.actions, r.nodes, r.positions, r.seconds,
                                  r.best_cards, r.best_line);
        },
        "game"_a, "max_nodes"_a, "max_seconds"_a, "probe_nodes"_a = 0, "dominances"_a = true,
        "table"_a.none() = nb::none(),
        "Solve ``game`` with every card known (solver.hpp): (verdict, actions, nodes, positions, seconds, "
        "best_cards, best_line), verdict 'won' (actions: a winning line), 'lost' (proven) or 'unknown' (budget reached). "
        "probe_nodes: the first nodes of the budget go to a limited discrepancy search for a win. "
        "dominances: the proven dominances (Game::solver_moves_pruned, Game::sure_win); False: the search before them. "
        "table: a LostTable of this deal's positions proven lost, read and added to (None: none kept). "
        "best_cards: the most foundation cards on a position reached; best_line: the actions to the first such.");

    m.def(
        "beam_solve",
        [](const pg::Game& g, std::int64_t width, std::int64_t max_nodes, double max_seconds) {
            if (width <= 0) throw std::invalid_argument("width must be positive, got " + std::to_string(width));
            if (max_nodes <= 0) throw std::invalid_argument("max_nodes must be positive, got " + std::to_string(max_nodes));
            pg::SolveResult r;
            {
                nb::gil_scoped_release release;
                r = pg::beam_solve(g, static_cast<std::uint64_t>(width), static_cast<std::uint64_t>(max_nodes),
                                   max_seconds);
            }
            static const char* const VERDICTS[] = {"unknown", "won", "lost"};
            return nb::make_tuple(VERDICTS[static_cast<int>(r.verdict)], r.actions, r.nodes, r.positions, r.seconds,
                                  r.best_cards, r.best_line);
        },
        "game"_a, "width"_a, "max_nodes"_a, "max_seconds"_a,
        "The layered beam search (beam.hpp): as solve(), with at most ``width`` positions of each layer kept "
        "(best by the variant's beam score); 'lost' only when no layer was cut.");

    m.def(
        "has_beam_layers", [](const pg::Game& g) { return g.beam_layer() >= 0; }, "game"_a,
        "Whether the variant's play advances in layers, as the beam search needs (beam.hpp).");

    m.def(
        "rollouts",
        [](const pg::Game& g, const std::vector<int>& actions, int max_steps) {
            for (int a : actions) check_action(g, a);
            nb::gil_scoped_release release;
            return pg::rollouts(g, actions, max_steps);
        },
        "game"_a, "actions"_a, "max_steps"_a,
        "For each legal action: play it on a copy of ``game``, then the rollout base policy (rollout.hpp) for "
        "at most max_steps - 1 more actions; the foundation cards each copy ends with.");

    m.def(
        "uct_search",
        [](const std::vector<const pg::Game*>& samples, int iterations, int rollout_moves, int max_depth,
           double exploration, const std::vector<std::uint64_t>& visited, int leaf_nodes, double discount) {
            if (samples.empty()) throw std::invalid_argument("uct_search needs at least one sample");
            for (const pg::Game* g : samples) {
                if (!g) throw std::invalid_argument("a sample is None");
                if (g->n_actions() != samples.front()->n_actions() || g->obs_size() != samples.front()->obs_size())
                    throw std::invalid_argument("the samples are not games of one variant and options");
            }
            if (iterations < 1) throw std::invalid_argument("iterations must be >= 1, got " + std::to_string(iterations));
            if (rollout_moves < 0) throw std::invalid_argument("rollout_moves must be >= 0, got " + std::to_string(rollout_moves));
            if (max_depth < 1) throw std::invalid_argument("max_depth must be >= 1, got " + std::to_string(max_depth));
            if (!(exploration >= 0)) throw std::invalid_argument("exploration must be >= 0");
            if (!(discount > 0 && discount <= 1)) throw std::invalid_argument("discount must be in (0, 1]");
            if (leaf_nodes < 0) throw std::invalid_argument("leaf_nodes must be >= 0, got " + std::to_string(leaf_nodes));
            const std::unordered_set<std::uint64_t> seen(visited.begin(), visited.end());
            pg::UctResult r;
            {
                nb::gil_scoped_release release;
                r = pg::uct_search(samples, {iterations, rollout_moves, max_depth, exploration, discount, leaf_nodes}, seen);
            }
            return nb::make_tuple(r.actions, r.visits, r.values, r.nodes, r.rollout_steps);
        },
        "samples"_a, "iterations"_a, "rollout_moves"_a, "max_depth"_a, "exploration"_a, "visited"_a,
        "leaf_nodes"_a = 0, "discount"_a = 1.0,
        "Information-set UCT (uct.hpp) from the position the samples share (each a game dealt consistently "
        "with what the player has seen), never moving back to a position in ``visited`` (observation_hash values): "
        "leaf_nodes > 0: new nodes valued by the solver with that many nodes instead of a rollout. "
        "(actions, visits, mean values, tree nodes, rollout moves or solver nodes).");

    nb::class_<pg::ValueNet>(m, "ValueNet",
                             "A small network's value of a position, scoring the macro planner's capped searches not won "
                             "(macro.hpp): layers added in order, a ReLU after each but the last.")
        .def(nb::init<>())
        .def(
            "add",
            [](pg::ValueNet& net, Vec<const float> weights, Vec<const float> biases, int in, int out) {
                net.add(in, out, std::vector<float>(weights.data(), weights.data() + weights.shape(0)),
                        std::vector<float>(biases.data(), biases.data() + biases.shape(0)));
            },
            "weights"_a, "biases"_a, "inputs"_a, "outputs"_a,
            "Append a layer: ``outputs`` x ``inputs`` weights (row-major, flat float32) and ``outputs`` biases.")
        .def("__call__", [](const pg::ValueNet& net, const pg::Game& g) { return net(g); }, "game"_a,
             "The probability of the first output on the game's observation.")
        .def("__len__", &pg::ValueNet::layers);

    m.def(
        "macro_decide",
        [](const pg::Game& proto, const std::vector<int>& frame, const std::vector<int>& unseen,
           const std::vector<int>& history, int samples, int batch, std::int64_t solve_nodes, double exploration,
           double cards, int region, std::int64_t known_nodes, std::int64_t max_nodes, double max_seconds,
           std::uint64_t seed, double race, double tie, bool all_won, bool dominances, pg::LostTable* table, bool one_per_event,
           std::int64_t probe_nodes, int deepen, bool silent_first, bool rollout, const std::vector<int>& fixed, double dig,
           std::int64_t beam, const std::vector<double>& prior, int keep, const pg::ValueNet* value_net, bool skip_decided) {
            if (frame.size() != static_cast<std::size_t>(52 * proto.n_packs()))
                throw std::invalid_argument("the frame must hold " + std::to_string(52 * proto.n_packs()) + " cards");
            if (solve_nodes < 1 || known_nodes < 1 || max_nodes < 0 || probe_nodes < 0 || deepen < 0 || deepen > 8 || beam < 0)
                throw std::invalid_argument(
                    "solve_nodes and known_nodes must be >= 1, max_nodes, probe_nodes and beam >= 0, deepen from 0 to 8");
            if (keep < 0) throw std::invalid_argument("keep must be >= 0");
            if (value_net && value_net->obs_size() != proto.obs_size())
                throw std::invalid_argument("the value net must read this game's observation of " +
                                            std::to_string(proto.obs_size()) + " values");
            if (!prior.empty() && prior.size() != static_cast<std::size_t>(proto.n_actions()))
                throw std::invalid_argument("prior must hold one weight per action id (" +
                                            std::to_string(proto.n_actions()) + "), or none");
            if (beam > 0 && proto.beam_layer() < 0)
                throw std::invalid_argument("beam > 0 needs a game whose play advances through the pack in one direction "
                                            "(Game::beam_layer): Klondike with limited passes, Light and Shade, Anna");
            pg::MacroSettings s{samples, batch, static_cast<std::uint64_t>(solve_nodes), exploration, cards, region,
                                static_cast<std::uint64_t>(known_nodes), static_cast<std::uint64_t>(max_nodes),
                                max_seconds, seed, race, tie, all_won, dominances, table, one_per_event,
                                static_cast<std::uint64_t>(probe_nodes), deepen, silent_first, rollout, fixed, dig,
                                static_cast<std::uint64_t>(beam), prior, keep, value_net, skip_decided};
            pg::MacroResult r;
            {
                nb::gil_scoped_release release;
                r = pg::macro_decide(proto, frame, unseen, history, s);
            }
            std::vector<std::vector<int>> lines;
            std::vector<int> plays, wins;
            std::vector<double> values;
            for (const auto& c : r.candidates) {
                lines.push_back(c.line);
                plays.push_back(c.plays);
                wins.push_back(c.wins);
                values.push_back(c.value);
            }
            return nb::make_tuple(lines, plays, wins, values, r.chosen, r.plan, r.nodes, r.region_positions, r.deals);
        },
        "proto"_a, "frame"_a, "unseen"_a, "history"_a, "samples"_a, "batch"_a, "solve_nodes"_a, "exploration"_a,
        "cards"_a, "region"_a, "known_nodes"_a, "max_nodes"_a, "max_seconds"_a, "seed"_a, "race"_a = 0.0, "tie"_a = 0.03, "all_won"_a = true, "dominances"_a = false, "table"_a.none() = nb::none(), "one_per_event"_a = false, "probe_nodes"_a = 0, "deepen"_a = 0, "silent_first"_a = false, "rollout"_a = false,
        "fixed"_a = std::vector<int>{}, "dig"_a = 0.0, "beam"_a = 0, "prior"_a = std::vector<double>{}, "keep"_a = 0,
        "value_net"_a.none() = nb::none(), "skip_decided"_a = false,
        "The macro planner's decision (macro.hpp) from the position reached by dealing ``frame`` and playing "
        "``history`` (positions ``unseen`` hidden, ``fixed`` of them known to the search): (candidate lines, samples, wins, summed values, chosen index "
        "or -1, plan, nodes, region positions, deals).");

    m.def(
        "observation_hash",
        [](Vec<const float> obs) { return pg::observation_hash(obs.data(), obs.shape(0)); }, "obs"_a,
        "A hash of what the player sees: an observation (float32), equal on consistent deals (uct.hpp).");

    m.def(
        "rollout_line",
        [](const pg::Game& g, int max_steps) {
            if (max_steps < 0) throw std::invalid_argument("max_steps must be >= 0, got " + std::to_string(max_steps));
            nb::gil_scoped_release release;
            auto copy = g.clone();
            std::vector<int> line;
            const int cards = pg::rollout(*copy, max_steps, &line);
            return std::make_pair(cards, line);
        },
        "game"_a, "max_steps"_a,
        "The rollout base policy (rollout.hpp) played from a copy of ``game`` for at most max_steps actions: "
        "(the foundation cards it ends with, the actions it played).");

    m.def(
        "ordering_pick",
        [](const pg::Game& g, const std::vector<int>& moves) {
            for (int a : moves) check_action(g, a);
            return pg::preferred(g, moves);
        },
        "game"_a, "moves"_a,
        "The rollout base policy's first choice among the legal ``moves`` (rollout.hpp): the most foundation "
        "cards won, then the highest move priority, then the lowest id.");

    nb::class_<Stepper>(m, "Stepper")
        .def(nb::init<pg::Game&, Vec<std::int8_t>, Vec<float>>(), "game"_a, "mask"_a.noconvert(),
             "obs"_a.noconvert(), nb::keep_alive<1, 2>(),
             "Bind a game to the int8 mask and float32 observation buffers its env owns.")
        .def("refresh", &Stepper::refresh, "Rewrite mask and observation; True while a move is legal.")
        .def("step", &Stepper::step, "action"_a,
             "Apply a legal action and refresh: (gained, won, live); (-1, False, False) if illegal.");
}

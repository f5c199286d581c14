// A game's spec as Python declares it: the shape of the data in generated/<game>_spec.hpp, which
// scripts/gen_native.py writes from the Python game (tests/native/test_native_spec.py fails while
// one is stale). A port reads it by Python's own names, at compile time:
//
//     constexpr const auto& spec = generated::klondike;
//     constexpr int STOCK = spec.first("STOCK");              // a move kind's first action id
//     constexpr int O_DOWN = spec.offset("face_down");        // an observation segment's offset
//     constexpr int HIDDEN = spec.place("not visible (...)"); // a card_place place's index
//     o["reserve"] == spec.choice("reserve", "open")          // a text option's code
//     constexpr int X_REDEALS = spec.extra("redeals_left");   // an info extra's place
//
// Name them in constexpr initialisers (as above), never at run time on a hot path: only a
// constant expression is sure to be folded, and only there does a wrong name fail the build.
//
// A name that Python does not have does not compile: the lookup's throw cannot be evaluated in a
// constant expression. So a Python change that the C++ does not follow fails the build, or, where
// only numbers move, is followed by the next regeneration.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string_view>

namespace pg::generated {

// A move kind (first action id, count) or an observation segment (offset, size), by name.
struct Range {
    const char* name;
    int start;
    int size;
};

// A text choice of an option and the code it reaches C++ as (its index among the choices).
struct Choice {
    const char* option;
    const char* text;
    int code;
};

template <std::size_t N>
constexpr int index_of(const std::array<const char*, N>& names, std::string_view name) {
    for (std::size_t i = 0; i < N; ++i)
        if (std::string_view(names[i]) == name) return static_cast<int>(i);
    throw std::logic_error("no such name in the game's spec");
}

template <std::size_t N>
constexpr const Range& range_of(const std::array<Range, N>& ranges, std::string_view name) {
    for (const Range& r : ranges)
        if (std::string_view(r.name) == name) return r;
    throw std::logic_error("no such name in the game's spec");
}

// Options: names in Python's OPTIONS order. Kinds: the action table kind by kind, in table order.
// Segments: the observation layout in order. Places: card_place's places per card (none without
// that segment). Choices: the codes of the options whose choices are texts. Extras: the keys of
// the game's extra_info(), in order (Python decodes the ones that are texts: native.EXTRA_TEXTS).
template <std::size_t N_OPTIONS, std::size_t N_KINDS, std::size_t N_SEGMENTS, std::size_t N_PLACES,
          std::size_t N_CHOICES, std::size_t N_EXTRAS>
struct GameSpec {
    const char* name;  // the Python class name: the key of the factory table
    int n_packs;       // Game.n_packs
    int win_cards;     // Game.win_cards: the cards on the foundations that win
    std::array<const char*, N_OPTIONS> options;
    std::array<Range, N_KINDS> kinds;
    std::array<Range, N_SEGMENTS> segments;
    std::array<const char*, N_PLACES> places;
    std::array<Choice, N_CHOICES> choices;
    std::array<const char*, N_EXTRAS> extras;

    constexpr int first(std::string_view kind) const { return range_of(kinds, kind).start; }
    constexpr int count(std::string_view kind) const { return range_of(kinds, kind).size; }
    constexpr int n_actions() const { return kinds.back().start + kinds.back().size; }
    constexpr int offset(std::string_view segment) const { return range_of(segments, segment).start; }
    constexpr int size(std::string_view segment) const { return range_of(segments, segment).size; }
    constexpr int obs_size() const { return segments.back().start + segments.back().size; }
    constexpr int place(std::string_view name) const { return index_of(places, name); }
    constexpr int n_places() const { return static_cast<int>(N_PLACES); }
    constexpr int extra(std::string_view name) const { return index_of(extras, name); }
    constexpr std::int64_t choice(std::string_view option, std::string_view text) const {
        for (const Choice& c : choices)
            if (std::string_view(c.option) == option && std::string_view(c.text) == text) return c.code;
        throw std::logic_error("no such choice in the game's spec");
    }
};

}  // namespace pg::generated

// The factory table, keyed by the Python class name (patience_gym/games/<game>.py). Each game
// file adds its own line through register_game (core.hpp), so ports never touch a shared file.
#include <algorithm>

#include "core.hpp"

namespace pg {

namespace {
std::vector<std::pair<std::string, Factory>>& table() {
    static std::vector<std::pair<std::string, Factory>> games;  // built before first use
    return games;
}
}  // namespace

bool register_game(const char* name, Factory factory) {
    auto& games = table();
    games.emplace_back(name, factory);
    std::sort(games.begin(), games.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });  // link order aside
    return true;
}

const std::vector<std::pair<std::string, Factory>>& factories() { return table(); }

}  // namespace pg

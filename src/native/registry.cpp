// The factory table, keyed by the Python class name (patience_gym/games/<game>.py). Each game
// file adds its own line through register_game (core.hpp), so ports never touch a shared file.
#include <algorithm>
#include <utility>

#include "core.hpp"

namespace pg {

namespace {
std::vector<GameEntry>& table() {
    static std::vector<GameEntry> games;  // built before first use
    return games;
}
}  // namespace

bool register_game(const char* name, Factory factory, std::vector<std::string> options) {
    auto& games = table();
    games.push_back({name, factory, std::move(options)});
    std::sort(games.begin(), games.end(),
              [](const auto& a, const auto& b) { return a.name < b.name; });  // link order aside
    return true;
}

const std::vector<GameEntry>& factories() { return table(); }

}  // namespace pg

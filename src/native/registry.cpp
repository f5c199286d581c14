// The factory table: one line per native game, keyed by the Python class's name
// (patience_gym/games/<game>.py). See PORTING.md for adding a game.
#include "core.hpp"

namespace pg {

std::unique_ptr<Game> make_klondike(const std::vector<std::int64_t>& options);

const std::vector<std::pair<std::string, Factory>>& factories() {
    static const std::vector<std::pair<std::string, Factory>> table = {
        {"Klondike", make_klondike},
    };
    return table;
}

}  // namespace pg

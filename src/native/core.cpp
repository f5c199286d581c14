// The checked entry points of the Game contract, options by name and the factory lookup.
#include "core.hpp"

#include <algorithm>
#include <array>
#include <string>

namespace pg {

void Game::checked_deal(const std::vector<int>& pack) {
    // Python's parse_pack has validated a user's deck already (with its messages); this check
    // only keeps a malformed call from reading out of bounds.
    const int packs = n_packs();
    if (static_cast<int>(pack.size()) != N_KINDS * packs)
        throw std::invalid_argument("pack must hold " + std::to_string(N_KINDS * packs) + " cards, got " +
                                    std::to_string(pack.size()));
    std::array<int, N_KINDS> count{};
    for (int c : pack) {
        if (c < 0 || c >= N_KINDS) throw std::invalid_argument("card id " + std::to_string(c) + " is outside 0..51");
        ++count[c];
    }
    for (int c = 0; c < N_KINDS; ++c)
        if (count[c] != packs)
            throw std::invalid_argument("pack must hold every card exactly " + std::to_string(packs) +
                                        " time(s); " + card_name(c) + " x" + std::to_string(count[c]));
    deal(pack);
}

void Game::checked_apply(int action) {
    if (action < 0 || action >= n_actions())
        throw std::invalid_argument("action " + std::to_string(action) + " is outside 0.." +
                                    std::to_string(n_actions() - 1));
    // The move's text is Python's (NativeGame.apply words the user's message): the id here.
    if (!is_legal(action)) throw std::invalid_argument("action " + std::to_string(action) + " is not legal now");
    apply(action);
}

std::int64_t Options::operator[](const char* name) const {
    const auto it = values_.find(name);
    if (it == values_.end())
        throw std::logic_error(std::string("the native port reads option '") + name + "', which was not passed");
    return it->second;
}

std::unique_ptr<Game> make_game(const std::string& name, const Options& options) {
    for (const auto& entry : factories()) {
        if (entry.name != name) continue;
        // Python sends every option of the game by name (encode_options): anything else is a
        // bug on one side or the other, never a user's mistake (Python has told the user).
        std::vector<std::string> given;
        for (const auto& [key, value] : options.values()) given.push_back(key);
        std::vector<std::string> wanted = entry.options;
        std::sort(wanted.begin(), wanted.end());
        if (given != wanted) {
            std::string want, got;
            for (const auto& n : entry.options) want += (want.empty() ? "" : ", ") + n;
            for (const auto& n : given) got += (got.empty() ? "" : ", ") + n;
            throw std::logic_error(name + " takes the options (" + want + ") by name, got (" + got +
                                   "): a bug in the caller (patience_gym.native.encode_options sends them)");
        }
        return entry.factory(options);
    }
    std::string names;
    for (const auto& entry : factories()) names += (names.empty() ? "" : ", ") + entry.name;
    throw std::invalid_argument("no native engine for " + name + "; native games: " + names);
}

}  // namespace pg

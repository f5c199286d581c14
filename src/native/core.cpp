// The checked entry points of the Game contract and the option-count guard.
#include "core.hpp"

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
    if (!is_legal(action)) throw std::invalid_argument(describe(action) + " is not legal now");
    apply(action);
}

void require_options(const char* game, const std::vector<std::int64_t>& options, std::size_t count) {
    if (options.size() != count)
        throw std::invalid_argument(std::string(game) + " takes " + std::to_string(count) + " encoded options, got " +
                                    std::to_string(options.size()));
}

std::unique_ptr<Game> make_game(const std::string& name, const std::vector<std::int64_t>& options) {
    for (const auto& [known, factory] : factories())
        if (known == name) return factory(options);
    std::string names;
    for (const auto& entry : factories()) names += (names.empty() ? "" : ", ") + entry.first;
    throw std::invalid_argument("no native engine for " + name + "; native games: " + names);
}

}  // namespace pg

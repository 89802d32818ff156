#include "games/registry.h"

#include "games/breakthrough.h"
#include "games/connect4.h"
#include "games/einstein.h"
#include "games/game2048.h"
#include "games/go.h"
#include "games/gomoku.h"
#include "games/havannah.h"
#include "games/hex.h"
#include "games/mastermind.h"
#include "games/minesweeper.h"
#include "games/othello.h"
#include "games/snake.h"
#include "games/tictactoe.h"
#include "games/tron.h"
#include "util/error.h"

namespace pz::games {

const std::vector<GameEntry>& registered_games() {
  static const std::vector<GameEntry> entries = {
      tictactoe_entry(), connect4_entry(), hex_entry(), othello_entry(), go_entry(), breakthrough_entry(),
      havannah_entry(), gomoku_entry(),
      einstein_entry(), mastermind_entry(), minesweeper_entry(),
      snake_entry(), game2048_entry(), tron_entry(),
  };
  return entries;
}

const GameEntry* find_game(std::string_view name) {
  for (const auto& entry : registered_games()) {
    if (entry.name == name) return &entry;
  }
  return nullptr;
}

std::shared_ptr<const Game> make_game(const util::Spec& spec) {
  const GameEntry* entry = find_game(spec.name);
  if (!entry) {
    std::vector<std::string> names;
    for (const auto& e : registered_games()) names.push_back(e.name);
    throw util::UsageError("unknown game '" + spec.name + "'; known games: " + util::join(names, ", ") +
                           " (`polyzero games` describes them)");
  }
  auto values = entry->options.resolve(spec.options, "game '" + entry->name + "'");
  util::Spec canonical{entry->name, values.all()};
  return entry->make(values, canonical);
}

std::shared_ptr<const Game> make_game(std::string_view spec) { return make_game(util::parse_spec(spec)); }

}  // namespace pz::games

#include "arena/record_check.h"

#include <optional>

#include "games/registry.h"
#include "util/error.h"

namespace pz::arena {
namespace {

std::string result_of(const std::vector<double>& returns) {
  if (returns.size() < 2) return "";
  return returns[0] > returns[1] ? "1-0" : returns[0] < returns[1] ? "0-1" : "1/2-1/2";
}

}  // namespace

std::string record_problem(const StoredGame& g) {
  if (g.result != "1-0" && g.result != "0-1" && g.result != "1/2-1/2") return "its result '" + g.result.substr(0, 20) + "' is not 1-0, 0-1 or 1/2-1/2";
  std::shared_ptr<const games::Game> game;
  try {
    game = games::make_game(g.game);
  } catch (const util::UsageError& e) {
    return "its game cannot be made (" + std::string(e.what()) + ")";
  }
  auto state = game->new_initial_state();
  for (std::size_t i = 0; i < g.moves.size(); ++i) {
    if (state->is_simultaneous_node()) return "";
    if (state->is_terminal()) return "move " + std::to_string(i + 1) + " comes after the end of the game";
    std::string error;
    const std::optional<games::Action> action = state->parse_action(g.moves[i], &error);
    if (!action) return "move " + std::to_string(i + 1) + " '" + g.moves[i].substr(0, 20) + "' cannot be read (" + error + ")";
    if (!state->is_legal(*action)) {
      return "move " + std::to_string(i + 1) + " '" + g.moves[i].substr(0, 20) + "' is illegal (" +
             state->explain_illegal(*action) + ")";
    }
    state->apply_action(*action);
  }
  if (!g.final_state.empty() && state->serialize() != g.final_state) {
    return "its moves do not reach its recorded final position";
  }
  if (g.reason == "game over") {
    if (!state->is_terminal()) return "it ended by the rules, but its moves stop before the end of the game";
    if (const std::string result = result_of(state->returns()); !result.empty() && result != g.result) {
      return "its result " + g.result + " is not the game's (" + result + ")";
    }
  }
  return "";
}

}  // namespace pz::arena

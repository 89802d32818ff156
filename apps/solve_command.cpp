// polyzero solve --game G [--position P | --moves M] [--seconds S] [--json]: the exact value
// of a position and of each of its moves (solve/solver.h).
#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>
#include <sstream>

#include "apps/commands.h"
#include "apps/game_args.h"
#include "solve/solver.h"
#include "util/error.h"

namespace pz::apps {

namespace {

// The position after `moves`, space-separated in the game's notation, or the characters of
// a serialised move list when the game serialises positions that way (Connect Four: "4453").
std::unique_ptr<games::State> position_after(const games::Game& game, const std::string& moves) {
  auto state = game.new_initial_state();
  std::istringstream in(moves);
  std::string token;
  int index = 0;
  while (in >> token) {
    ++index;
    if (state->current_player() < 0) throw util::UsageError("--moves: the game is over before move " + std::to_string(index));
    std::string error;
    auto action = state->parse_action(token, &error);
    if (!action || !state->is_legal(*action)) {
      // One word may be a serialised game (Connect Four's "4453").
      if (index == 1 && in.eof() && token.size() > 1) {
        try {
          return game.deserialize(token);
        } catch (const util::UsageError& e) {
          throw util::UsageError(std::string("--moves: ") + e.what());
        }
      }
      throw util::UsageError("--moves: move " + std::to_string(index) + " '" + token + "': " +
                             (error.empty() ? "illegal here" : error));
    }
    state->apply_action(*action);
  }
  return state;
}

std::string plies_text(const std::optional<int>& plies) {
  return plies ? " in " + std::to_string(*plies) + " plies" : "";
}

}  // namespace

void add_solve_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("solve", "exact value of a position and of each move (Connect Four, tic-tac-toe, small Hex, Othello endgames)");
  struct Args {
    GameArgs game;
    std::string position, moves;
    double seconds = 60;
    bool weak = false, json = false;
  };
  auto args = std::make_shared<Args>();
  args->game.add_to(*cmd);
  auto* position = cmd->add_option("--position", args->position, "a serialised position (as `polyzero play` records it)");
  cmd->add_option("--moves", args->moves, "moves from the initial position, in the game's notation (\"4 4 5 3\" or \"4453\" for Connect Four)")
      ->excludes(position);
  cmd->add_option("--seconds", args->seconds, "time allowed; over it the answer is 'unknown'")->check(CLI::PositiveNumber)->capture_default_str();
  cmd->add_flag("--weak", args->weak, "win/draw/loss only, without distances (faster)");
  cmd->add_flag("--json", args->json, "one JSON object");
  cmd->callback([args] {
    const auto game = args->game.make();
    std::string why;
    auto solver = solve::make_solver(*game, &why);
    if (!solver) throw util::UsageError(why);
    const auto state = !args->position.empty() ? game->deserialize(args->position) : position_after(*game, args->moves);
    if (state->current_player() < 0) throw util::UsageError("the game is over in that position: nothing to solve");
    const solve::Solution s =
        solver->solve(*state, solve::SolveOptions{.seconds = args->seconds, .each_move = true, .distances = !args->weak});
    const games::Player mover = state->current_player();
    if (args->json) {
      nlohmann::json moves = nlohmann::json::array();
      for (const auto& m : s.moves) {
        nlohmann::json j = {{"move", state->action_to_string(mover, m.action)}, {"action", m.action}, {"value", solve::value_name(m.value)}};
        if (m.plies) j["plies"] = *m.plies;
        moves.push_back(j);
      }
      nlohmann::json out = {{"game", game->spec().to_string()}, {"position", state->serialize()}, {"solver", solver->name()},
                            {"complete", s.complete}, {"nodes", s.nodes}, {"seconds", s.seconds}};
      if (s.complete) {
        out["value"] = solve::value_name(s.value);
        if (s.plies) out["plies"] = *s.plies;
        out["moves"] = moves;
      }
      std::cout << out.dump() << std::endl;
    } else if (!s.complete) {
      std::printf("unknown: not solved within %g s (%llu nodes); raise --seconds\n", args->seconds,
                  static_cast<unsigned long long>(s.nodes));
    } else {
      std::printf("player %d to move: %s%s (%llu nodes, %.3f s, %s)\n", mover + 1, solve::value_name(s.value), plies_text(s.plies).c_str(), static_cast<unsigned long long>(s.nodes), s.seconds,
                  solver->name().c_str());
      for (const auto& m : s.moves)
        std::printf("  %-6s %s%s\n", state->action_to_string(mover, m.action).c_str(), solve::value_name(m.value),
                    plies_text(m.plies).c_str());
    }
  });
}

}  // namespace pz::apps

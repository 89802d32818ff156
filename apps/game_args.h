// The --game/--options pair every game-using command accepts: `--game hex:size=9` and
// `--game hex --options size=9` mean the same (options given both ways merge, --options
// wins).
#pragma once

#include <map>
#include <memory>
#include <vector>
#include <string>

#include <CLI/CLI.hpp>

#include "games/game.h"

namespace pz::apps {

struct GameArgs {
  std::string game;
  std::string options;
  void add_to(CLI::App& command, const std::string& default_game = "");
  // Throws util::UsageError for unknown games or bad options.
  std::shared_ptr<const games::Game> make() const;
};

// "--model GAME=CHECKPOINT" pairs (serve, analyze) as game name → checkpoint path.
// Throws util::UsageError for a pair without both parts.
std::map<std::string, std::string> parse_game_models(const std::vector<std::string>& pairs);

// The networks serve and analyze offer: the --model pairs, then, for the games they do not
// name, the models shipped in models/<game>.safetensors (found as util/data_dirs.h finds
// data; read by either build). Each checkpoint is read and verified now: a given
// one that is damaged or made for another game is a util::UsageError, a shipped one is
// skipped with a warning. `games`: the network_spec (games/game.h) each network plays (hex's shipped
// network plays hex:size=8,swap=false only).
struct GameModels {
  std::map<std::string, std::string> paths;
  std::map<std::string, std::string> games;
};
GameModels load_game_models(const std::vector<std::string>& pairs);

// The player spec "ai" (play's --p1/--p2, gtp's --player) stands for the game's default AI:
// a search with the shipped network of exactly this board (models/<game>.safetensors, as
// load_game_models finds it), else a network-free search. Other specs are returned as given.
inline constexpr const char* kDefaultAiSpec = "ai";
std::string resolve_default_ai(const std::string& spec, const games::Game& game);

}  // namespace pz::apps

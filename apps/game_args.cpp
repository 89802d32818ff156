#include "apps/game_args.h"

#include <iostream>

#include "nn/model_info.h"
#include "games/registry.h"
#include "util/data_dirs.h"
#include "util/files.h"
#include "util/error.h"
#include "util/spec.h"

namespace pz::apps {

void GameArgs::add_to(CLI::App& command, const std::string& default_game) {
  auto* opt = command.add_option("--game,-g", game, "game name with optional options, e.g. hex:size=9 (see `polyzero games`)");
  if (default_game.empty()) {
    opt->required();
  } else {
    game = default_game;
    opt->capture_default_str();
  }
  command.add_option("--options,-o", options, "game options key=value,... (merged into --game's)");
}

std::shared_ptr<const games::Game> GameArgs::make() const {
  util::Spec spec = util::parse_spec(game);
  util::parse_options(options, spec.options);
  return games::make_game(spec);
}

std::map<std::string, std::string> parse_game_models(const std::vector<std::string>& pairs) {
  std::map<std::string, std::string> models;
  for (const auto& pair : pairs) {
    const auto equals = pair.find('=');
    if (equals == std::string::npos || equals == 0 || equals + 1 == pair.size()) {
      throw util::UsageError("--model " + pair + ": write GAME=CHECKPOINT, e.g. connect4=runs/c4/models/latest.pt");
    }
    const std::string game = pair.substr(0, equals);
    if (!games::find_game(game)) {
      throw util::UsageError("--model " + pair + ": '" + game + "' is not a game (polyzero games lists them)");
    }
    if (models.count(game)) throw util::UsageError("--model " + pair + ": a second network for " + game);
    models[game] = pair.substr(equals + 1);
  }
  return models;
}

namespace {

// The checkpoint's game as a canonical spec; throws util::UsageError for a damaged file or
// one trained for another game than `name`.
std::string model_game(const std::string& name, const std::string& path) {
  const nn::ModelInfo info = nn::read_model_info(path);
  const auto game = games::make_game(info.game);
  if (game->info().name != name) {
    throw util::UsageError("--model " + name + "=" + path + ": the checkpoint was trained for " + info.game + ", not for " + name);
  }
  return game->network_spec().to_string();
}

}  // namespace

GameModels load_game_models(const std::vector<std::string>& pairs) {
  GameModels out;
  out.paths = parse_game_models(pairs);
  for (const auto& [name, path] : out.paths) out.games[name] = model_game(name, path);
  const auto dir = util::find_data_dir({"PZ_MODELS_DIR", "models", "models", "README.md"});
  if (!dir) return out;
  for (const auto& entry : games::registered_games()) {
    const std::string path = *dir + "/" + entry.name + ".safetensors";
    if (out.paths.count(entry.name) || !util::file_problem(path).empty()) continue;
    try {
      out.games[entry.name] = model_game(entry.name, path);
      out.paths[entry.name] = path;
    } catch (const util::UsageError& e) {
      std::cerr << "warning: the shipped model " << path << " is not used: " << e.what() << "\n";
    }
  }
  return out;
}

std::string resolve_default_ai(const std::string& spec, const games::Game& game) {
  if (spec != kDefaultAiSpec) return spec;
  const GameModels models = load_game_models({});
  const std::string& name = game.info().name;
  const auto path = models.paths.find(name);
  if (path != models.paths.end() && models.games.at(name) == game.network_spec().to_string())
    return "mcts:model=" + path->second + ",sims=400";
  return "mcts:sims=800";
}

}  // namespace pz::apps

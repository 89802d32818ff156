#include "apps/game_args.h"

#include "games/registry.h"
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

}  // namespace pz::apps

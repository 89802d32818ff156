#include "apps/train_config_args.h"

#include "games/registry.h"
#include "nn/files.h"
#include "util/data_dirs.h"
#include "util/error.h"
#include "util/json_text.h"

namespace pz::apps {

namespace {

std::string find_game_config(const std::string& game_name) {
  const std::string file = game_name + ".json";
  const auto dir = util::find_data_dir({"PZ_CONFIG_DIR", "configs", "configs", file});
  return dir ? *dir + "/" + file : "";
}

nlohmann::json read_json_file(const std::string& path) {
  return util::parse_json_object(nn::read_text_file(path), path);
}

// --config takes a file, or the JSON itself when it starts with '{' (as `lr --config`).
nlohmann::json read_config_argument(const std::string& argument) {
  const auto first = argument.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && argument[first] == '{') return util::parse_json_object(argument, "--config");
  return read_json_file(argument);
}

}  // namespace

std::shared_ptr<const games::Game> recipe_game(const GameArgs& args) {
  if (!args.options.empty() || args.game.find(':') != std::string::npos) return args.make();
  const std::string defaults = find_game_config(args.game);
  if (defaults.empty()) return args.make();
  const nlohmann::json recipe = read_json_file(defaults);
  if (!recipe.contains("game") || !recipe["game"].is_string()) return args.make();
  const auto game = games::make_game(recipe["game"].get<std::string>());
  if (game->info().name != args.game) {
    throw util::UsageError(defaults + ": its \"game\" is " + game->info().name + ", not " + args.game);
  }
  return game;
}

nlohmann::json assemble_train_config(const games::Game& game, const std::string& config_file,
                                     const std::vector<std::string>& overrides) {
  nlohmann::json j = nn::default_train_config();
  const std::string defaults = find_game_config(game.info().name);
  if (!defaults.empty()) j.merge_patch(read_json_file(defaults));
  if (!config_file.empty()) j.merge_patch(read_config_argument(config_file));
  j["game"] = game.spec().to_string();
  for (const auto& s : overrides) nn::apply_override(j, s);
  return j;
}

}  // namespace pz::apps

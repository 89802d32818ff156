#include "apps/train_config_args.h"

#include "nn/files.h"
#include "util/json_text.h"

namespace pz::apps {

namespace {

// --config takes a file, or the JSON itself when it starts with '{' (as `lr --config`).
nlohmann::json read_config_argument(const std::string& argument) {
  const auto first = argument.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && argument[first] == '{') return util::parse_json_object(argument, "--config");
  return util::parse_json_object(nn::read_text_file(argument), argument);
}

}  // namespace

std::shared_ptr<const games::Game> recipe_game(const GameArgs& args) {
  if (!args.options.empty()) return args.make();
  return nn::recipe_game(args.game);
}

nlohmann::json assemble_train_config(const games::Game& game, const std::string& config_file,
                                     const std::vector<std::string>& overrides) {
  nlohmann::json j = nn::recipe_config(game);
  if (!config_file.empty()) j.merge_patch(read_config_argument(config_file));
  j["game"] = game.spec().to_string();
  for (const auto& s : overrides) nn::apply_override(j, s);
  return j;
}

}  // namespace pz::apps

// polyzero games [--json]: the games this build knows, their family and options.
#include <nlohmann/json.hpp>

#include <iostream>

#include "apps/commands.h"
#include "games/registry.h"

namespace pz::apps {

void add_games_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("games", "list the games, their family and their options");
  auto json = std::make_shared<bool>(false);
  cmd->add_flag("--json", *json, "machine-readable output");
  cmd->callback([json] {
    if (*json) {
      nlohmann::json out = nlohmann::json::array();
      for (const auto& entry : games::registered_games()) {
        nlohmann::json options = nlohmann::json::array();
        for (const auto& o : entry.options.options()) {
          nlohmann::json opt = {{"name", o.key}, {"default", o.default_value}, {"help", o.help}};
          static const char* kTypes[] = {"int", "number", "bool", "string"};
          opt["type"] = kTypes[static_cast<int>(o.type)];
          if (o.min) opt["min"] = *o.min;
          if (o.max) opt["max"] = *o.max;
          if (!o.choices.empty()) opt["choices"] = o.choices;
          options.push_back(opt);
        }
        auto game = entry.make(entry.options.resolve({}, entry.name), util::Spec{entry.name, {}});
        const auto& info = game->info();
        out.push_back({{"name", entry.name},
                       {"long_name", entry.long_name},
                       {"family", games::family_name(entry.family)},
                       {"description", entry.description},
                       {"players", info.num_players},
                       {"actions", info.num_distinct_actions},
                       {"observation_shape", {info.observation_shape.channels, info.observation_shape.height, info.observation_shape.width}},
                       {"policy_shape", {info.policy_shape.channels, info.policy_shape.height, info.policy_shape.width}},
                       {"symmetries", game->symmetries().size()},
                       {"options", options}});
      }
      std::cout << out.dump(2) << "\n";
      return;
    }
    for (const auto& entry : games::registered_games()) {
      std::cout << entry.name << "  [" << games::family_name(entry.family) << "]  " << entry.long_name << ": "
                << entry.description << "\n";
      if (entry.options.options().empty()) {
        std::cout << "    (no options)\n";
      } else {
        std::cout << entry.options.describe("    ");
      }
    }
    std::cout << "\nUse a game as NAME or NAME:key=value,... (e.g. --game hex:size=9,swap=false).\n";
  });
}

}  // namespace pz::apps

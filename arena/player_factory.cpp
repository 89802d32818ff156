#include "arena/player_factory.h"

#include "arena/basic_players.h"
#include "util/error.h"

namespace pz::arena {

const std::vector<PlayerKind>& player_kinds() {
  static const std::vector<PlayerKind> kinds = [] {
    std::vector<PlayerKind> k;
    k.push_back({"human", "a person at the terminal, browser or GTP controller", util::OptionSchema(),
                 [](const util::OptionSchema::Values&, const util::Spec&, const games::Game&, std::uint64_t) {
                   return std::unique_ptr<Player>(std::make_unique<HumanPlayer>());
                 }});
    util::OptionSchema random_options;
    random_options.add_int("seed", -1, "random seed (-1: derived from the match seed)", -1);
    k.push_back({"random", "uniformly random legal moves", std::move(random_options),
                 [](const util::OptionSchema::Values& v, const util::Spec& spec, const games::Game&, std::uint64_t seed) {
                   const int own = v.get_int("seed");
                   return std::unique_ptr<Player>(
                       std::make_unique<RandomPlayer>(spec.to_string(), own >= 0 ? static_cast<std::uint64_t>(own) : seed));
                 }});
    return k;
  }();
  return kinds;
}

std::unique_ptr<Player> make_player(std::string_view text, const games::Game& game, std::uint64_t seed) {
  util::Spec spec = util::parse_spec(text);
  for (const auto& kind : player_kinds()) {
    if (kind.name != spec.name) continue;
    auto values = kind.options.resolve(spec.options, "player '" + kind.name + "'");
    return kind.make(values, spec, game, seed);
  }
  std::vector<std::string> names;
  for (const auto& kind : player_kinds()) names.push_back(kind.name);
  throw util::UsageError("unknown player '" + spec.name + "'; known players: " + util::join(names, ", ") +
                         " (written kind[:key=value,...], e.g. random:seed=3)");
}

std::string describe_player_kinds() {
  std::string out;
  for (const auto& kind : player_kinds()) {
    out += "  " + kind.name + ": " + kind.description + "\n";
    out += kind.options.describe("      ");
  }
  return out;
}

}  // namespace pz::arena

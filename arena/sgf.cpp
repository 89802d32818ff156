#include "arena/sgf.h"

#include <cmath>
#include <cstdio>

#include "games/go.h"
#include "games/registry.h"
#include "util/error.h"

namespace pz::arena {
namespace {

// SGF text values escape ']' and '\'.
std::string sgf_text(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == ']' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

std::string number_text(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

}  // namespace

std::string go_game_to_sgf(const StoredGame& game) {
  const auto made = games::make_game(game.game);
  const auto* go = dynamic_cast<const games::GoGame*>(made.get());
  if (!go) throw util::UsageError("SGF export is for Go games; game " + std::to_string(game.id) + " is " + game.game);
  auto state = go->new_initial_state();
  const int size = go->size();
  std::string moves;
  for (std::size_t i = 0; i < game.moves.size(); ++i) {
    std::string error;
    const auto action = state->parse_action(game.moves[i], &error);
    if (!action || !state->is_legal(*action)) {
      throw util::UsageError("game " + std::to_string(game.id) + ", move " + std::to_string(i + 1) + " '" +
                             game.moves[i] + "' does not replay: " + (action ? state->explain_illegal(*action) : error));
    }
    moves += state->current_player() == 0 ? ";B[" : ";W[";
    if (*action != go->pass_action()) {
      moves += static_cast<char>('a' + *action % size);  // column
      moves += static_cast<char>('a' + *action / size);  // row, counted from the top as SGF does
    }
    moves += "]";
    state->apply_action(*action);
  }
  std::string result = "?";
  if (state->is_terminal()) {
    const double score = static_cast<const games::GoState&>(*state).score();
    result = score > 0 ? "B+" + number_text(score) : score < 0 ? "W+" + number_text(-score) : "0";
  } else if (game.result != "1/2-1/2") {  // ended by a forfeit
    result = std::string(game.result == "1-0" ? "B" : "W") + (game.reason == "resigned" ? "+R" : "+F");
  }
  std::string sgf = "(;GM[1]FF[4]CA[UTF-8]AP[polyzero]SZ[" + std::to_string(size) + "]KM[" + number_text(go->komi()) +
                    "]RU[Tromp-Taylor]PB[" + sgf_text(game.first_player) + "]PW[" + sgf_text(game.second_player) +
                    "]RE[" + result + "]DT[" + game.started.substr(0, 10) + "]";
  if (!game.reason.empty() && game.reason != "game over") sgf += "GC[" + sgf_text(game.reason) + "]";
  return sgf + moves + ")\n";
}

}  // namespace pz::arena

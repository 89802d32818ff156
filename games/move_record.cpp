#include "games/move_record.h"

#include <cctype>
#include <string>

#include "util/error.h"

namespace pz::games {

void for_each_word(std::string_view text, const std::function<void(int, std::string_view)>& each) {
  std::size_t pos = 0;
  int index = 0;
  for (;;) {
    while (pos < text.size() && std::isspace(static_cast<unsigned char>(text[pos]))) ++pos;
    if (pos == text.size()) return;
    std::size_t end = pos;
    while (end < text.size() && !std::isspace(static_cast<unsigned char>(text[end]))) ++end;
    each(++index, text.substr(pos, end - pos));
    pos = end;
  }
}

void replay_move_record(State& state, std::string_view record) {
  for_each_word(record, [&](int index, std::string_view word) {
    auto fail = [&](const std::string& why) {
      throw util::UsageError(state.game().info().name + " record '" + std::string(record) + "', move " +
                             std::to_string(index) + ": " + why);
    };
    std::string error;
    const auto action = state.parse_action(word, &error);
    if (!action) fail(error);
    if (!state.is_legal(*action)) fail(state.explain_illegal(*action));
    state.apply_action(*action);
  });
}

}  // namespace pz::games

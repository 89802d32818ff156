#include "arena/basic_players.h"

#include <stdexcept>

namespace pz::arena {

games::Action HumanPlayer::choose_action(const games::State&, games::Player) {
  throw std::logic_error("a human player must be asked through a front-end (terminal, browser or GTP)");
}

games::Action RandomPlayer::choose_action(const games::State& state, games::Player seat) {
  state.legal_actions(seat, legal_);
  if (legal_.empty()) throw std::logic_error("random player asked to move with no legal action");
  return legal_[rng_.below(static_cast<std::uint32_t>(legal_.size()))];
}

}  // namespace pz::arena

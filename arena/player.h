// A player: anything that picks moves — a person, a random mover, a search with or without
// a network, an external engine over GTP. Matches, tournaments, the terminal and the play
// server all drive players through this one interface.
#pragma once

#include <memory>
#include <string>

#include "games/game.h"

namespace pz::arena {

class Player {
 public:
  virtual ~Player() = default;

  // The spec this player was made from ("uct:sims=400"), for records and ratings.
  virtual std::string name() const = 0;

  // A person answers through a front-end (terminal, browser, GTP controller), which asks
  // them instead of calling choose_action.
  virtual bool is_human() const { return false; }

  // The action for `seat` in `state`: at a decision node `seat` is the player to move; at a
  // simultaneous node it is this player's seat. Never called at chance or terminal nodes.
  virtual games::Action choose_action(const games::State& state, games::Player seat) = 0;

  // Told of every action applied to the game (this player's own included) so that players
  // with memory (search trees, an engine's board) follow the game. `before` is the state the
  // action was applied to.
  virtual void observe_action(const games::State& before, games::Action action) {
    (void)before;
    (void)action;
  }

  // The game restarted from its initial state, or was rewound (undo) to `state`.
  virtual void reset(const games::State& state) { (void)state; }
};

}  // namespace pz::arena

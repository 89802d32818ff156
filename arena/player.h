// A player: anything that picks moves — a person, a random mover, a search with or without
// a network, an external engine over GTP. Matches, tournaments, the terminal and the play
// server all drive players through this one interface.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>

#include "games/game.h"

namespace pz::arena {

// Thrown by Player::choose_action when the player gives the game up: the game ends there as
// a loss for its seat, and what() is recorded as the reason (arena/match.h). Anything else
// a player throws is an error of the program and stops the match.
class Forfeit : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The player resigned ("resigned").
class Resignation final : public Forfeit {
 public:
  Resignation() : Forfeit("resigned") {}
};

// An external engine could not go on: it crashed, hung past its time limit, answered
// garbage, refused a command or answered an illegal move. what() is "engine failure: "
// followed by `reason`.
class EngineFailure final : public Forfeit {
 public:
  explicit EngineFailure(const std::string& reason) : Forfeit("engine failure: " + reason) {}
};

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
  // Throws a Forfeit to give the game up.
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

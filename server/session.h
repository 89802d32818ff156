// One game of the play server: a game, a player for each seat ("human" or an AI spec), the
// actions played, undo, resignation, and the session state of server/README.md.
//
// Chance outcomes are drawn by the session (from a generator seeded at creation) right
// after the move that reaches them. At a simultaneous node each seat's choice is held until
// every seat has chosen (humans first), then the joint move is played; the actions list
// holds it seat by seat. A Session is not thread-safe: the server locks it.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "games/game.h"
#include "util/rng.h"

namespace pz::server {

// A request the API refuses: the HTTP status and the message of the JSON error.
class ApiError : public std::runtime_error {
 public:
  ApiError(int status, const std::string& message) : std::runtime_error(message), status_(status) {}
  int status() const { return status_; }

 private:
  int status_;
};

// What a session stores: enough to rebuild it after a restart.
struct SessionRecord {
  std::string id;
  std::string game;                    // canonical spec
  std::vector<std::string> seats;      // "human" or a player spec
  std::uint64_t seed = 0;
  std::vector<games::Action> actions;  // chance outcomes included
  nlohmann::json values = nlohmann::json::array();  // the AI moves' estimates
  int resigned_seat = -1;
  std::string created, updated;
};

// A seat's spec as the client wrote it → the spec the server makes the player from; throws
// util::UsageError for a spec the client may not use (arena/untrusted_specs.h).
using SeatResolver = std::function<std::string(const std::string&)>;

class Session {
 public:
  // Throws ApiError(400) for a wrong number of seats, or a seat that is neither "human"
  // nor a spec that `resolve` accepts and that makes a player for the game. Seats keep the
  // client's spelling; the server resolves them again for each AI move.
  Session(std::string id, std::shared_ptr<const games::Game> game, std::vector<std::string> seats, std::uint64_t seed,
          const SeatResolver& resolve);
  // Rebuilds a stored session (its seats are checked when an AI moves). Throws
  // ApiError(500) when its actions no longer replay.
  static std::unique_ptr<Session> restore(const SessionRecord& record);

  const std::string& id() const { return id_; }
  const games::Game& game() const { return *game_; }
  const games::State& state() const { return *history_.back(); }
  const std::vector<std::string>& seats() const { return seats_; }
  int move_count() const { return static_cast<int>(actions_.size()); }
  // Undo and resignation make any search started before them stale.
  int generation() const { return generation_; }

  bool finished() const { return state().is_terminal() || resigned_seat_ >= 0; }
  // The seat to move, or nullopt when the game is over. At a simultaneous node: the first
  // human seat that has not chosen yet, else the first seat that has not.
  std::optional<int> seat_to_move() const;
  bool is_human(int seat) const { return seats_[static_cast<std::size_t>(seat)] == "human"; }
  // The AI that plays for `seat`: its own spec, or for a human seat the session's first AI.
  std::string ai_for(int seat) const;

  // A human's move in the game's notation. ApiError: 409 when the game is over or an AI is
  // to move, 400 when the move cannot be read or is illegal.
  void play_human(const std::string& move);
  // The AI's move for the seat to move, with its own estimate for the value graph: an entry
  // in `values` when it has one, none for a player that does not evaluate (`random`).
  void play_ai(games::Action action, std::optional<double> win_probability, nlohmann::json analysis);
  // Takes back the last human move and everything after it. ApiError(409) when none.
  void undo();
  // ApiError(400) for a seat that is not in the game, 409 when the game is over.
  void resign(int seat);

  nlohmann::json state_json(bool thinking) const;
  nlohmann::json record_json() const;
  SessionRecord record() const;

 private:
  void apply(games::Action action);  // and the chance outcomes that follow
  // Holds `seat`'s choice at a simultaneous node; plays the joint move once all have chosen.
  void choose(int seat, games::Action action);
  void draw_chance_outcomes();
  bool legal_for(int seat, games::Action action) const;

  std::string id_;
  std::shared_ptr<const games::Game> game_;
  std::vector<std::string> seats_;
  std::uint64_t seed_;
  util::Rng chance_rng_;
  std::vector<std::unique_ptr<games::State>> history_;  // history_[k]: after k actions
  std::vector<games::Action> actions_;
  std::vector<int> movers_;  // seat of each action (kChancePlayer for chance outcomes)
  std::vector<int> step_start_;  // per action: the first action of its step (a joint move's)
  std::map<int, games::Action> chosen_;  // choices made at the current simultaneous node
  nlohmann::json values_ = nlohmann::json::array();
  nlohmann::json analysis_;  // the last AI search's thinking
  int resigned_seat_ = -1;
  int generation_ = 0;
  std::string created_;
};

}  // namespace pz::server

// Tournaments between any number of players of a two-player game, as engine testers run
// them (cutechess-cli's round-robin and gauntlet).
//
// Pairings. Round-robin: every pair of players. Gauntlet: the first player against each of
// the others. Chain gauntlet (training runs): the first `anchors` players against every
// other player, and each of the others against the next one in order — a checkpoint is
// measured against the fixed anchors and its neighbours in training time.
//
// Games. Each pairing plays `games_per_pairing` games in pairs: game 2k and 2k+1 start
// from opening k (arena/openings.h) with colours swapped; the pairing's first-listed
// player moves first in even games. Players are made afresh for every game, seeded from
// the tournament's seed, the pairing and the game number, so each game is the same
// whatever the concurrency and whichever run of the command plays it.
//
// Records and resumption. Every finished game goes to the TournamentDb (an SQLite file, or
// memory); a tournament run again on the same file plays only the games it lacks. `stop`
// ends the run between moves: games in progress are dropped, to be played next time.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "arena/openings.h"
#include "arena/ratings.h"
#include "arena/tournament_db.h"
#include "games/game.h"

namespace pz::arena {

enum class TournamentFormat { kRoundRobin, kGauntlet, kChainGauntlet };
const char* format_name(TournamentFormat format);
// "round-robin" or "gauntlet"; anything else is a util::UsageError listing both.
TournamentFormat parse_format(std::string_view text);

struct Pairing {
  int a = 0, b = 0;  // positions in the players' list, a < b
};
// Throws util::UsageError when the format needs more players than given.
std::vector<Pairing> make_pairings(TournamentFormat format, int players, int anchors = 1);

struct TournamentOptions {
  std::vector<std::string> players;  // specs; at least two, all different
  TournamentFormat format = TournamentFormat::kRoundRobin;
  int anchors = 1;                   // kChainGauntlet: how many leading players are anchors
  int games_per_pairing = 2;
  int concurrency = 1;               // games played at once
  std::string openings;              // see arena/openings.h
  std::uint64_t seed = 1;
  int max_moves = 0;                 // 0: the game's own limit; a game cut short is a draw
};

class Tournament {
 public:
  // Checks the options (each spec must make a player of `game`) and opens or creates the
  // tournament in `db`. Throws util::UsageError for bad options, a game that is not for two
  // players, or duplicate players.
  Tournament(const games::Game& game, TournamentOptions options, TournamentDb& db);

  const TournamentRecord& record() const { return record_; }
  const std::vector<Pairing>& pairings() const { return pairings_; }
  int total_games() const;
  const std::vector<StoredGame>& games() const { return games_; }  // finished, in order of finishing
  int missing_games() const { return total_games() - static_cast<int>(games_.size()); }

  // Plays the games the database lacks until all are played, `stop` becomes true, or
  // `on_game` — called (serialised) after each game is stored — returns false. Rethrows
  // the first error a game raised (a player that cannot be made, a broken database) after
  // the other games stop.
  using GameCallback = std::function<bool(const StoredGame&)>;
  void run(const std::atomic<bool>& stop, const GameCallback& on_game = {});

  // Results by position in the players' list (games of players not in it are ignored).
  ResultTable results() const;

 private:
  struct Slot {
    int pairing, round;
  };
  std::vector<Slot> missing_slots() const;
  StoredGame play_slot(const Slot& slot, const std::function<bool()>& should_stop, bool& interrupted) const;

  const games::Game& game_;
  TournamentOptions options_;
  TournamentDb& db_;
  TournamentRecord record_;
  std::vector<Pairing> pairings_;
  Openings openings_;
  std::vector<StoredGame> games_;
};

}  // namespace pz::arena

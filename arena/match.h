// Matches between two players: N games with alternating colours, results from the first
// player's point of view, each game's record kept.
//
// Single-player games (Mastermind, 2048, ...) have no colours: each player plays the N games
// alone, game i of both with the same chance seed (the same secret code, the same tile
// spawns as far as their moves allow), so the comparison is paired; p1 "wins" game i when it
// scores more than p2 did on it. The second player is optional there.
//
// Players are made afresh for every game from their specs, with seeds derived from the
// match seed, the game's index and the seat, so a match is reproducible whatever the
// number of threads playing its games in parallel. Chance outcomes are drawn by their
// probabilities from a generator seeded the same way. At simultaneous nodes each player is
// asked for its seat's action, and every player is then told the joint action seat by seat.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "arena/player.h"
#include "games/game.h"
#include "util/rng.h"

namespace pz::arena {

enum class Outcome { kWin, kDraw, kLoss };
const char* outcome_name(Outcome outcome);

struct MatchOptions {
  std::string p1, p2;       // player specs
  int games = 2;
  int threads = 1;          // games played in parallel
  std::uint64_t seed = 1;
  int max_moves = 0;        // 0: no limit beyond the game's; a game cut short is a draw
};

struct GameResult {
  int index = 0;
  int p1_seat = 0;                  // games alternate: p1 is seat 0 in even games
  std::vector<std::string> moves;   // in the game's notation (chance outcomes included)
  std::string final_state;          // State::serialize() at the end
  std::vector<double> returns;
  Outcome p1_outcome = Outcome::kDraw;
  bool cut_short = false;
};

struct MatchResult {
  std::string game, p1, p2;
  int wins = 0, draws = 0, losses = 0;  // for p1
  std::vector<GameResult> games;        // by index
  // Single-player games: p2's games (same chance seeds), empty without p2.
  std::vector<GameResult> p2_games;
  int played() const { return wins + draws + losses; }
  double score() const { return played() > 0 ? (wins + 0.5 * draws) / played() : 0.0; }
};

// Plays one game, seats[i] playing seat i (as many players as the game has).
GameResult play_game(const games::Game& game, std::span<Player* const> seats, util::Rng& chance_rng, int max_moves = 0);
// Mean and standard error of the mean of the first seat's returns over `games`.
struct ScoreSummary {
  double mean = 0, stderr_mean = 0, min = 0, max = 0;
};
ScoreSummary summarize_scores(const std::vector<GameResult>& games);

// Throws util::UsageError for a bad spec, a missing p2 in a two-player game, or a game for
// more than two players.
// `on_game` is called (under a lock) as each game ends, in completion order.
MatchResult play_match(const games::Game& game, const MatchOptions& options,
                       const std::function<void(const GameResult&)>& on_game = {});

}  // namespace pz::arena

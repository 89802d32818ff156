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

#include <atomic>
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
  // Set from any thread to stop the match (Ctrl-C): no game starts after it, and games in
  // progress end unfinished; MatchResult then holds only the finished games.
  const std::atomic<bool>* stop = nullptr;
};

struct GameResult {
  int index = 0;
  int p1_seat = 0;                  // games alternate: p1 is seat 0 in even games
  std::vector<std::string> moves;   // in the game's notation (chance outcomes included)
  std::string final_state;          // State::serialize() at the end
  std::vector<double> returns;
  Outcome p1_outcome = Outcome::kDraw;
  bool cut_short = false;
  // A game a player gave up from choose_action (a Forfeit, arena/player.h) ends there: the
  // seat that forfeited, and the reason ("resigned", "engine failure: …"). In two-player
  // games its returns are the game's min_return and the other seat's its max_return (a
  // loss and a win); a single player keeps the score it had. -1 and empty otherwise.
  int forfeit_seat = -1;
  std::string termination;
  int opening_plies = 0;     // moves that came from PlayOptions::opening
  bool interrupted = false;  // PlayOptions::should_stop ended it: not a result
};

struct MatchResult {
  std::string game, p1, p2;
  int wins = 0, draws = 0, losses = 0;  // for p1
  std::vector<GameResult> games;        // by index
  // Single-player games: p2's games (same chance seeds), empty without p2.
  std::vector<GameResult> p2_games;
  bool interrupted = false;  // MatchOptions::stop ended it before every game was played
  int played() const { return wins + draws + losses; }
  double score() const { return played() > 0 ? (wins + 0.5 * draws) / played() : 0.0; }
};

// How play_game plays a game beyond its players.
struct PlayOptions {
  int max_moves = 0;                   // 0: no limit beyond the game's; a game cut short is a draw
  std::vector<games::Action> opening;  // played first, as if chosen (chance outcomes included)
  std::function<bool()> should_stop;   // asked before every move; true ends the game unfinished
};

// Plays one game, seats[i] playing seat i (as many players as the game has). A Forfeit
// thrown by a player ends the game as a loss for its seat (see GameResult). Players are
// told of opening moves through observe_action like any other move.
GameResult play_game(const games::Game& game, std::span<Player* const> seats, util::Rng& chance_rng, int max_moves = 0);
GameResult play_game(const games::Game& game, std::span<Player* const> seats, util::Rng& chance_rng,
                     const PlayOptions& options);

// A seed derived from `seed` and two indices (SplitMix64 finaliser): the players', the
// chance outcomes' and the openings' generators of game `a` of a match or tournament.
std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t a, std::uint64_t b);
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

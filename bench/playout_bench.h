// Random-playout throughput of a game: how fast the rules engine runs when nothing else
// does (the ceiling for rollouts in UCT and for self-play move generation).
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "games/game.h"

namespace pz::bench {

struct PlayoutThroughput {
  std::string game;       // canonical spec
  std::int64_t games = 0;
  std::int64_t moves = 0;  // actions applied, chance outcomes included
  double seconds = 0;
  double games_per_second() const { return seconds > 0 ? static_cast<double>(games) / seconds : 0; }
  double moves_per_second() const { return seconds > 0 ? static_cast<double>(moves) / seconds : 0; }
};

// Plays uniformly random games from the initial state for about `seconds` (at least one
// game), through the public State API only: legal_actions into a reused buffer, then
// apply_action (chance outcomes drawn uniformly among the listed ones).
PlayoutThroughput measure_random_playouts(const games::Game& game, double seconds, std::uint64_t seed);

struct PlayoutBenchOptions {
  std::vector<std::string> games;  // game specs; empty: every registered game with its defaults
  double seconds = 1.0;            // per game
  bool json = false;               // one JSON object per game instead of a table
  std::uint64_t seed = 12345;
};

// `polyzero bench games`: measures each game in turn and writes its row to `out` as soon as
// it is measured.
void run_playout_bench(const PlayoutBenchOptions& options, std::ostream& out);

}  // namespace pz::bench

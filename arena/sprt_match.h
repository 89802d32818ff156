// An SPRT played out: game pairs between a tested player and a baseline, as a two-player
// tournament (same openings with colours swapped, records in a TournamentDb so an
// interrupted test continues), until the pentanomial SPRT decides (arena/sprt.h), the pair
// limit is reached, or `stop` is set. `polyzero sprt` and the trainer's gate (eval.gate)
// both run it.
#pragma once

#include <atomic>
#include <functional>
#include <string>

#include "arena/sprt.h"
#include "arena/tournament_db.h"
#include "games/game.h"

namespace pz::arena {

struct SprtMatchOptions {
  std::string tested, baseline;  // player specs
  SprtOptions sprt;
  int max_pairs = 20000;
  int concurrency = 1;
  std::string openings = "random:4";
  std::uint64_t seed = 1;
  int max_moves = 0;
};

struct SprtMatchResult {
  Pentanomial counts;
  SprtStatus status;
};

// Throws util::UsageError for bad options (see validate(SprtOptions), Tournament). Calls
// `on_pair` after each completed pair with the counts and status so far.
SprtMatchResult play_sprt(const games::Game& game, const SprtMatchOptions& options, TournamentDb& db,
                          const std::atomic<bool>& stop,
                          const std::function<void(const SprtMatchResult&)>& on_pair = {});

}  // namespace pz::arena

// Labelled position sets: positions of a game, each with the exact value of every legal
// move (solver.h), generated reproducibly from a seed, saved and reloaded as JSON lines.
//
// A position is reached by a game whose moves are, each with probability
// `random_share`, a uniformly random legal move, else the move of an engine (an arena player
// spec, "uct:sims=200" by default), and stopped at a ply drawn uniformly from [min_ply,
// max_ply]. Only positions where the choice matters are kept: some legal move changes the
// game-theoretic value (elsewhere every move is right). Positions the solver cannot finish
// within the budget are skipped and counted.
//
// File format: one JSON object per line. The first line describes the set
// ({"game": spec, "seed": …, "positions": N}); each further line is a position
// ({"position": State::serialize(), "ply": …, "value": …, "one_ply": …, "moves": [[action,
// value], …]}), values for the player to move.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "games/game.h"
#include "solve/solver.h"
#include "util/rng.h"

namespace pz::solve {

struct LabelledPosition {
  std::string position;  // State::serialize()
  int ply = 0;
  int value = 0;         // for the player to move
  // A correct move is found by one ply of lookahead: an immediate win, or every move that
  // loses value lets the opponent win at once.
  bool one_ply = false;
  std::vector<MoveValue> moves;  // every legal move
  bool keeps_value(games::Action action) const;  // false for an action not in `moves`
};

struct PositionSet {
  std::string game;  // canonical spec
  std::uint64_t seed = 0;
  std::vector<LabelledPosition> positions;
};

struct GenerateOptions {
  int count = 200;
  std::uint64_t seed = 1;
  int min_ply = -1, max_ply = -1;  // -1: a fifth of the game's longest length, and the longest
  double random_share = 0.5;
  std::string engine = "uct:sims=200";
  double solve_seconds = 10;  // per position
  double total_seconds = 0;   // stop with the positions labelled so far after this (0: none)
  // Set from another thread (Ctrl-C): stop with the positions labelled so far.
  const std::atomic<bool>* stop = nullptr;
  // Called after each labelled position with the number labelled so far and the seconds spent.
  std::function<void(int labelled, double seconds)> on_labelled;
};

struct GenerateStats {
  int skipped_over_budget = 0;  // positions the solver did not finish
  int skipped_no_choice = 0;    // positions where every move has the same value
  bool out_of_time = false;     // total_seconds ran out before `count` positions
  bool stopped = false;         // GenerateOptions::stop ended it before `count` positions
  double seconds = 0;
};

// Throws util::UsageError when the game has no solver or the options are out of range.
PositionSet generate_positions(const games::Game& game, const GenerateOptions& options, GenerateStats* stats = nullptr);

// A position `ply` uniformly random moves in, avoiding moves that may end the game while
// others exist (so games last); nullptr when the game ended anyway. For tests and benchmarks.
std::unique_ptr<games::State> quiet_random_position(const games::Game& game, int ply, util::Rng& rng);

// Whether one ply of lookahead finds a correct move in `state` (see LabelledPosition).
bool found_by_one_ply(const games::State& state, const std::vector<MoveValue>& moves, int value);

// Written to a temporary name and renamed. load_positions throws util::UsageError naming the
// file and line when it is unreadable, malformed or for another game than `game`.
void save_positions(const std::string& path, const PositionSet& set);
PositionSet load_positions(const std::string& path, const games::Game& game);

}  // namespace pz::solve

// Checks every game must pass, shared by the per-game test files.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "games/game.h"
#include "games/registry.h"

namespace pz::games::testing {

// games/perft.h's count on a test's own, independently written reference implementation:
// `moves(ref)` lists the moves (none once the game is over; chance outcomes are moves too)
// and `play(ref, move)` plays one on a copy.
template <class Ref, class Moves, class Play>
std::uint64_t reference_perft(const Ref& ref, int depth, const Moves& moves, const Play& play) {
  if (depth == 0) return 1;
  const auto list = moves(ref);
  if (depth == 1) return list.size();
  std::uint64_t total = 0;
  for (const auto& move : list) {
    Ref child = ref;
    play(child, move);
    total += reference_perft(child, depth - 1, moves, play);
  }
  return total;
}

// The same for a reference with `legal()` and `play(move)`.
template <class Ref>
std::uint64_t reference_perft(const Ref& ref, int depth) {
  return reference_perft(
      ref, depth, [](const Ref& r) { return r.legal(); }, [](Ref& r, const auto& move) { r.play(move); });
}

// The game made through its registry entry from these options, so the option schema is
// exercised too.
std::shared_ptr<const Game> make_from_entry(const GameEntry& entry, const std::map<std::string, std::string>& options);

// The state after `moves` (in the game's notation) from the initial state. A move that does
// not read, or comes after the end of the game, fails the test and stops the replay.
std::unique_ptr<State> play_moves(const Game& game, const std::vector<std::string>& moves);

// Plays `num_games` random games (seeded) and checks at every node: legal actions sorted,
// unique, in range, and each one's notation parses back to itself; clone() is
// independent; serialize()/deserialize() round-trips (same hash, text, legal moves,
// player, returns); the hash changes with every move in games without pass-like no-ops
// only when `hash_changes_every_move`; observation has the declared size and finite values;
// terminal returns lie in [min_return, max_return] and sum to 0 for zero-sum games; the
// game ends within max_game_length; no action that may_end_game rules out ends the game.
// Uses gtest assertions.
void check_random_playouts(const Game& game, int num_games, std::uint64_t seed);

// For games whose may_end_game is exact: at every decision node of random games, it is
// true for exactly the legal actions that end the game.
void check_may_end_game_exact(const Game& game, int num_games, std::uint64_t seed);

// For every symmetry s of the game: replays random games from the initial state both as
// played and with every action (and chance outcome, via transform_chance_outcome)
// transformed by s, and checks the transformed game's legal
// actions are the transformed legal actions, its observation planes are the transformed
// planes, and its outcome is the same.
void check_symmetries(const Game& game, int num_games, std::uint64_t seed);

}  // namespace pz::games::testing

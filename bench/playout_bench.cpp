#include "bench/playout_bench.h"

#include <chrono>
#include <vector>

#include "util/rng.h"

namespace pz::bench {

PlayoutThroughput measure_random_playouts(const games::Game& game, double seconds, std::uint64_t seed) {
  using Clock = std::chrono::steady_clock;
  PlayoutThroughput result;
  result.game = game.spec().to_string();
  util::Rng rng(seed);
  std::vector<games::Action> legal;
  std::vector<games::Action> joint;
  const auto root = game.new_initial_state();
  const auto start = Clock::now();
  const auto deadline = start + std::chrono::duration<double>(seconds);
  do {
    // Several games between clock reads: reading the clock costs more than a move.
    for (int i = 0; i < 16; ++i) {
      auto state = root->clone();
      while (!state->is_terminal()) {
        if (state->is_simultaneous_node()) {
          joint.clear();
          for (int p = 0; p < game.info().num_players; ++p) {
            state->legal_actions(p, legal);
            joint.push_back(legal[rng.below(static_cast<std::uint32_t>(legal.size()))]);
          }
          state->apply_joint_action(joint);
        } else {
          state->legal_actions(legal);
          state->apply_action(legal[rng.below(static_cast<std::uint32_t>(legal.size()))]);
        }
        ++result.moves;
      }
      ++result.games;
    }
  } while (Clock::now() < deadline);
  result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return result;
}

}  // namespace pz::bench

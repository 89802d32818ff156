#include "bench/playout_bench.h"

#include <chrono>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/text.h"
#include "games/registry.h"
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

void run_playout_bench(const PlayoutBenchOptions& options, std::ostream& out) {
  std::vector<std::shared_ptr<const games::Game>> list;
  if (options.games.empty()) {
    for (const auto& entry : games::registered_games()) list.push_back(games::make_game(entry.name));
  } else {
    for (const auto& spec : options.games) list.push_back(games::make_game(spec));
  }
  if (!options.json) out << format("%-36s %10s %12s %14s %12s\n", "game", "games", "games/s", "moves/s", "moves/game");
  for (const auto& game : list) {
    const auto r = measure_random_playouts(*game, options.seconds, options.seed);
    if (options.json) {
      out << nlohmann::json{{"game", r.game}, {"games", r.games}, {"moves", r.moves}, {"seconds", r.seconds},
                            {"games_per_second", r.games_per_second()}, {"moves_per_second", r.moves_per_second()}}
                 .dump()
          << std::endl;
    } else {
      out << format("%-36s %10lld %12.0f %14.0f %12.1f\n", r.game.c_str(), static_cast<long long>(r.games),
                    r.games_per_second(), r.moves_per_second(), static_cast<double>(r.moves) / static_cast<double>(r.games))
          << std::flush;
    }
  }
}

}  // namespace pz::bench

#include "solve/accuracy.h"

#include <chrono>
#include <cmath>

#include "arena/player_factory.h"

namespace pz::solve {

AccuracyShare accuracy_share(std::string name, int positions, int correct) {
  AccuracyShare s;
  s.name = std::move(name);
  s.positions = positions;
  s.correct = correct;
  if (positions == 0) return s;
  constexpr double z = 1.959963984540054;  // the normal 97.5% quantile
  const double n = positions, p = correct / n;
  const double centre = (p + z * z / (2 * n)) / (1 + z * z / n);
  const double half = z * std::sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n);
  s.share = p;
  s.low = std::max(0.0, centre - half);
  s.high = std::min(1.0, centre + half);
  return s;
}

AccuracyReport measure_accuracy(const games::Game& game, const PositionSet& set, const std::string& player_spec,
                                std::uint64_t seed, const std::atomic<bool>* stop) {
  const auto start = std::chrono::steady_clock::now();
  auto player = arena::make_player(player_spec, game, seed);
  const int longest = std::max(3, game.info().max_game_length);
  const int third = (longest + 2) / 3;
  struct Count {
    int positions = 0, correct = 0;
  };
  Count all, phase[3], difficulty[2];
  AccuracyReport r;
  for (const LabelledPosition& p : set.positions) {
    if (stop && stop->load()) {
      r.stopped = true;
      break;
    }
    const auto state = game.deserialize(p.position);
    player->reset(*state);
    const games::Action action = player->choose_action(*state, state->current_player());
    const bool right = p.keeps_value(action);
    for (Count* c : {&all, &phase[std::min(2, p.ply / third)], &difficulty[p.one_ply ? 0 : 1]}) {
      ++c->positions;
      c->correct += right;
    }
  }
  r.player = player_spec;
  r.all = accuracy_share("all", all.positions, all.correct);
  const char* phases[3] = {"opening", "middle", "late"};
  for (int i = 0; i < 3; ++i)
    r.by_phase.push_back(accuracy_share(std::string(phases[i]) + " (plies " + std::to_string(i * third) + "-" +
                                            std::to_string(std::min(longest, (i + 1) * third) - 1) + ")",
                                        phase[i].positions, phase[i].correct));
  r.by_difficulty.push_back(accuracy_share("one ply settles it", difficulty[0].positions, difficulty[0].correct));
  r.by_difficulty.push_back(accuracy_share("harder", difficulty[1].positions, difficulty[1].correct));
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

}  // namespace pz::solve

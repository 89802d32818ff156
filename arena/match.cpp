#include "arena/match.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>

#include "arena/player_factory.h"
#include "util/error.h"

namespace pz::arena {
namespace {

std::uint64_t mix(std::uint64_t seed, std::uint64_t a, std::uint64_t b) {
  std::uint64_t z = seed ^ (a * 0x9E3779B97F4A7C15ULL) ^ (b * 0xC2B2AE3D27D4EB4FULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

games::Action draw_outcome(const games::State& state, util::Rng& rng) {
  const auto outcomes = state.chance_outcomes();
  double u = rng.uniform();
  for (const auto& [action, p] : outcomes) {
    if (u < p) return action;
    u -= p;
  }
  return outcomes.back().first;
}

}  // namespace

const char* outcome_name(Outcome outcome) {
  switch (outcome) {
    case Outcome::kWin: return "win";
    case Outcome::kDraw: return "draw";
    case Outcome::kLoss: return "loss";
  }
  return "?";
}

GameResult play_game(const games::Game& game, Player& seat0, Player& seat1, util::Rng& chance_rng, int max_moves) {
  Player* players[2] = {&seat0, &seat1};
  auto state = game.new_initial_state();
  for (Player* p : players) p->reset(*state);
  GameResult result;
  std::vector<games::Action> joint;
  while (!state->is_terminal()) {
    if (max_moves > 0 && state->move_number() >= max_moves) {
      result.cut_short = true;
      break;
    }
    const auto before = state->clone();
    if (state->is_simultaneous_node()) {
      joint.clear();
      for (int seat = 0; seat < 2; ++seat) joint.push_back(players[seat]->choose_action(*state, seat));
      for (int seat = 0; seat < 2; ++seat) {
        result.moves.push_back(state->action_to_string(seat, joint[static_cast<std::size_t>(seat)]));
      }
      state->apply_joint_action(joint);
      for (games::Action a : joint) {
        for (Player* p : players) p->observe_action(*before, a);
      }
      continue;
    }
    const games::Player mover = state->current_player();
    const games::Action action =
        mover == games::kChancePlayer ? draw_outcome(*state, chance_rng) : players[mover]->choose_action(*state, mover);
    result.moves.push_back(state->action_to_string(mover, action));
    state->apply_checked(action);
    for (Player* p : players) p->observe_action(*before, action);
  }
  result.final_state = state->serialize();
  result.returns = result.cut_short ? std::vector<double>(2, 0.0) : state->returns();
  return result;
}

MatchResult play_match(const games::Game& game, const MatchOptions& options,
                       const std::function<void(const GameResult&)>& on_game) {
  if (game.info().num_players != 2) {
    throw util::UsageError("a match needs a two-player game; " + game.info().name + " has " +
                           std::to_string(game.info().num_players));
  }
  if (options.games < 1) throw util::UsageError("a match needs at least one game");
  // Fail on a bad spec before any thread starts.
  make_player(options.p1, game, 0);
  make_player(options.p2, game, 0);

  MatchResult match;
  match.game = game.spec().to_string();
  match.p1 = options.p1;
  match.p2 = options.p2;
  match.games.resize(static_cast<std::size_t>(options.games));
  std::atomic<int> next{0};
  std::mutex mutex;
  std::exception_ptr error;
  auto worker = [&] {
    for (;;) {
      const int index = next.fetch_add(1);
      if (index >= options.games) return;
      try {
        const int p1_seat = index % 2;
        const auto i = static_cast<std::uint64_t>(index);
        auto p1 = make_player(options.p1, game, mix(options.seed, i, 1));
        auto p2 = make_player(options.p2, game, mix(options.seed, i, 2));
        util::Rng chance(mix(options.seed, i, 3));
        GameResult result = p1_seat == 0 ? play_game(game, *p1, *p2, chance, options.max_moves)
                                         : play_game(game, *p2, *p1, chance, options.max_moves);
        result.index = index;
        result.p1_seat = p1_seat;
        const double mine = result.returns[static_cast<std::size_t>(p1_seat)];
        const double theirs = result.returns[static_cast<std::size_t>(1 - p1_seat)];
        result.p1_outcome = mine > theirs ? Outcome::kWin : mine < theirs ? Outcome::kLoss : Outcome::kDraw;
        std::lock_guard lock(mutex);
        match.games[static_cast<std::size_t>(index)] = result;
        if (on_game) on_game(result);
      } catch (...) {
        std::lock_guard lock(mutex);
        if (!error) error = std::current_exception();
        next.store(options.games);
        return;
      }
    }
  };
  const int threads = std::max(1, std::min(options.threads, options.games));
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& th : pool) th.join();
  if (error) std::rethrow_exception(error);
  for (const auto& g : match.games) {
    match.wins += g.p1_outcome == Outcome::kWin;
    match.draws += g.p1_outcome == Outcome::kDraw;
    match.losses += g.p1_outcome == Outcome::kLoss;
  }
  return match;
}

}  // namespace pz::arena

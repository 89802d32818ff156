#include "solve/solver_player.h"

#include <stdexcept>

#include "arena/player_factory.h"
#include "solve/solver.h"
#include "util/error.h"
#include "util/spec.h"

namespace pz::solve {

namespace {

class SolverPlayer final : public arena::Player {
 public:
  SolverPlayer(std::string name, std::unique_ptr<Solver> solver, double seconds)
      : name_(std::move(name)), solver_(std::move(solver)), seconds_(seconds) {}
  std::string name() const override { return name_; }

  games::Action choose_action(const games::State& state, games::Player) override {
    const Solution s = solver_->solve(state, SolveOptions{.seconds = seconds_, .each_move = true});
    if (!s.complete)
      // Out of its time the perfect player cannot play perfectly: it gives the game up, and
      // the record says why (arena/player.h).
      throw arena::Forfeit("no exact answer within " + util::format_double(seconds_) + " s (raise seconds=)");
    const MoveValue* best = nullptr;
    for (const MoveValue& m : s.moves) {
      if (m.value != s.value) continue;
      // A win as soon as possible, a loss or a draw as late as possible.
      const bool sooner = best && m.plies && best->plies && (s.value > 0 ? *m.plies < *best->plies : *m.plies > *best->plies);
      if (!best || sooner) best = &m;
    }
    if (!best) throw std::logic_error("solver player: no move keeps the position's value");
    return best->action;
  }

 private:
  std::string name_;
  std::unique_ptr<Solver> solver_;
  double seconds_;
};

}  // namespace

void register_solver_player() {
  util::OptionSchema options;
  options.add_double("seconds", 60.0, "time allowed to solve each position", 0.001);
  arena::register_player_kind(
      {"solver", "perfect play from the exact solver (Connect Four, tic-tac-toe, small Hex, Othello endgames)",
       std::move(options),
       [](const util::OptionSchema::Values& v, const util::Spec& spec, const games::Game& game, std::uint64_t) {
         std::string why;
         auto solver = make_solver(game, &why);
         if (!solver) throw util::UsageError("player 'solver': " + why);
         return std::unique_ptr<arena::Player>(
             std::make_unique<SolverPlayer>(spec.to_string(), std::move(solver), v.get_double("seconds")));
       }});
}

}  // namespace pz::solve

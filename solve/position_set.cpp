#include "solve/position_set.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "arena/player_factory.h"
#include "util/error.h"
#include "util/files.h"
#include "util/rng.h"

namespace pz::solve {

using nlohmann::json;

bool LabelledPosition::keeps_value(games::Action action) const {
  for (const MoveValue& m : moves)
    if (m.action == action) return m.value == value;
  return false;
}

namespace {

// Whether `mover` wins at once with some move in `state`.
bool has_immediate_win(const games::State& state) {
  std::vector<games::Action> legal;
  state.legal_actions(legal);
  const games::Player mover = state.current_player();
  for (games::Action a : legal) {
    if (!state.may_end_game(a)) continue;
    auto child = state.clone();
    child->apply_action(a);
    if (child->current_player() == games::kTerminalPlayer && child->returns()[static_cast<std::size_t>(mover)] > 0)
      return true;
  }
  return false;
}

}  // namespace

std::unique_ptr<games::State> quiet_random_position(const games::Game& game, int ply, util::Rng& rng) {
  auto state = game.new_initial_state();
  std::vector<games::Action> legal, quiet;
  while (state->current_player() >= 0 && state->move_number() < ply) {
    state->legal_actions(legal);
    quiet.clear();
    for (games::Action a : legal)
      if (!state->may_end_game(a)) quiet.push_back(a);
    const auto& from = quiet.empty() ? legal : quiet;
    state->apply_action(from[rng.below(static_cast<std::uint32_t>(from.size()))]);
  }
  return state->current_player() >= 0 ? std::move(state) : nullptr;
}

bool found_by_one_ply(const games::State& state, const std::vector<MoveValue>& moves, int value) {
  if (has_immediate_win(state)) return true;
  for (const MoveValue& m : moves) {
    if (m.value == value) continue;
    auto child = state.clone();
    child->apply_action(m.action);
    if (child->current_player() == games::kTerminalPlayer || !has_immediate_win(*child)) return false;
  }
  return true;
}

PositionSet generate_positions(const games::Game& game, const GenerateOptions& o, GenerateStats* stats) {
  std::string why;
  auto solver = make_solver(game, &why);
  if (!solver) throw util::UsageError(why);
  const int longest = std::max(1, game.info().max_game_length);
  const int min_ply = o.min_ply >= 0 ? o.min_ply : longest / 5, max_ply = o.max_ply >= 0 ? o.max_ply : longest;
  if (o.count < 1 || min_ply > max_ply)
    throw util::UsageError("positions: need a count of at least 1 and plies with min <= max (got " + std::to_string(o.count) +
                           ", " + std::to_string(min_ply) + "-" + std::to_string(max_ply) + ")");
  const auto start = std::chrono::steady_clock::now();
  GenerateStats local;
  PositionSet set;
  set.game = game.spec().to_string();
  set.seed = o.seed;
  util::Rng rng(o.seed);
  auto engine = arena::make_player(o.engine, game, o.seed ^ 0xE1E1);
  const long long attempts = 100LL * o.count;
  std::vector<games::Action> legal;
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  for (long long attempt = 0; attempt < attempts && static_cast<int>(set.positions.size()) < o.count; ++attempt) {
    if (o.total_seconds > 0 && elapsed() > o.total_seconds) {
      local.out_of_time = true;
      break;
    }
    if (o.stop && o.stop->load()) {
      local.stopped = true;
      break;
    }
    const int target = min_ply + static_cast<int>(rng.below(static_cast<std::uint32_t>(max_ply - min_ply + 1)));
    auto state = game.new_initial_state();
    engine->reset(*state);
    while (state->current_player() >= 0 && state->move_number() < target) {
      state->legal_actions(legal);
      const games::Action a = rng.uniform() < o.random_share ? legal[rng.below(static_cast<std::uint32_t>(legal.size()))]
                                                             : engine->choose_action(*state, state->current_player());
      engine->observe_action(*state, a);
      state->apply_action(a);
    }
    if (state->current_player() < 0) continue;  // the game ended first
    double seconds = o.solve_seconds;
    if (o.total_seconds > 0) seconds = std::min(seconds, std::max(0.01, o.total_seconds - elapsed()));
    const Solution s =
        solver->solve(*state, SolveOptions{.seconds = seconds, .each_move = true, .distances = false, .stop = o.stop});
    if (o.stop && o.stop->load()) {
      local.stopped = true;
      break;
    }
    if (!s.complete) {
      ++local.skipped_over_budget;
      continue;
    }
    bool choice = false;
    for (const MoveValue& m : s.moves) choice |= m.value != s.value;
    if (!choice) {
      ++local.skipped_no_choice;
      continue;
    }
    LabelledPosition p;
    p.position = state->serialize();
    p.ply = state->move_number();
    p.value = s.value;
    p.moves = s.moves;
    p.one_ply = found_by_one_ply(*state, s.moves, s.value);
    set.positions.push_back(std::move(p));
    if (o.on_labelled) o.on_labelled(static_cast<int>(set.positions.size()), elapsed());
  }
  local.seconds = elapsed();
  if (stats) *stats = local;
  return set;
}

void save_positions(const std::string& path, const PositionSet& set) {
  std::ostringstream out;
  out << json{{"game", set.game}, {"seed", set.seed}, {"positions", set.positions.size()}}.dump() << "\n";
  for (const LabelledPosition& p : set.positions) {
    json moves = json::array();
    for (const MoveValue& m : p.moves) moves.push_back({m.action, m.value});
    out << json{{"position", p.position}, {"ply", p.ply}, {"value", p.value}, {"one_ply", p.one_ply}, {"moves", moves}}.dump()
        << "\n";
  }
  util::write_text_atomically(path, out.str());
}

PositionSet load_positions(const std::string& path, const games::Game& game) {
  if (std::filesystem::is_directory(path)) throw util::UsageError(path + " is a directory, not a position set file");
  std::ifstream in(path);
  if (!in) throw util::UsageError("cannot read position set " + path);
  PositionSet set;
  std::string line;
  int number = 0;
  auto fail = [&](const std::string& what) {
    throw util::UsageError(path + ":" + std::to_string(number) + ": " + what);
  };
  while (std::getline(in, line)) {
    ++number;
    if (line.empty()) continue;
    try {
      const json j = json::parse(line);
      if (number == 1) {
        set.game = j.at("game").get<std::string>();
        set.seed = j.value("seed", std::uint64_t{0});
        if (set.game != game.spec().to_string())
          fail("the positions are for " + set.game + ", not for " + game.spec().to_string());
        continue;
      }
      LabelledPosition p;
      p.position = j.at("position").get<std::string>();
      p.ply = j.at("ply").get<int>();
      p.value = j.at("value").get<int>();
      p.one_ply = j.at("one_ply").get<bool>();
      for (const json& m : j.at("moves")) p.moves.push_back({m.at(0).get<games::Action>(), m.at(1).get<int>()});
      const auto state = game.deserialize(p.position);  // throws a usage error for a bad position
      if (state->current_player() < 0) fail("the position is not a decision node");
      set.positions.push_back(std::move(p));
    } catch (const json::exception& e) {
      fail(std::string("not a position set line (") + e.what() + ")");
    } catch (const util::UsageError& e) {
      if (std::string(e.what()).rfind(path + ":", 0) == 0) throw;
      fail(e.what());
    }
  }
  if (number == 0) throw util::UsageError(path + ": empty; expected a position set (polyzero accuracy --save)");
  return set;
}

}  // namespace pz::solve

// Players from specs, with the grammar of util/spec.h:
//
//   human                   a person at the front-end in use
//   random[:seed=N]         uniformly random legal moves
//
//   uct:sims=N,…            UCT with random rollouts (arena/search_players.h)
//   mcts:sims=N,…           PUCT search (arena/search_players.h)
//
//   gtp:cmd=COMMAND[,timeout=S,log=PATH]
//                           an external engine over GTP, Go, Hex and Othello (arena/gtp_player.h)
//
// An unknown kind or option is a util::UsageError listing the valid ones, exactly like
// games.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "arena/player.h"
#include "games/game.h"
#include "mcts/evaluator.h"
#include "util/spec.h"

namespace pz::arena {

struct PlayerKind {
  std::string name;
  std::string description;
  util::OptionSchema options;
  // `seed` is the match's seed for this seat; kinds with a `seed` option let it override.
  std::function<std::unique_ptr<Player>(const util::OptionSchema::Values&, const util::Spec& spec,
                                        const games::Game& game, std::uint64_t seed)>
      make;
};

const std::vector<PlayerKind>& player_kinds();

// Adds a kind (or replaces the one with the same name). Call at start-up, before any
// make_player: the list is not locked.
void register_player_kind(PlayerKind kind);

// The evaluator behind `mcts:model=PATH`: builds a network evaluator for `game` from the
// checkpoint at `path`, throwing util::UsageError when it cannot (missing, corrupt, another
// game). Installed at start-up by the programs that link networks.
struct ModelEvaluatorOptions {
  int symmetries = 1;  // boards each position is averaged over (sym=K; 0: all of the game's)
  std::string backend;  // the network backend (backend=NAME; empty: the default)
  int threads = 1;      // threads of one network evaluation (nnthreads=N)
  std::string winograd = "auto";  // poly backend: 3×3 convolutions as Winograd (winograd=auto|off|2|3|4)
};
// The options every model-backed player kind takes (sym, backend, nnthreads, winograd),
// with `prefix` before each help text (e.g. "with model=: "), and their values read back.
void add_model_evaluator_options(util::OptionSchema& schema, const std::string& prefix = "");
ModelEvaluatorOptions model_evaluator_options(const util::OptionSchema::Values& values);
using ModelEvaluatorFactory = std::function<std::unique_ptr<mcts::Evaluator>(
    const std::string& path, const games::Game& game, const ModelEvaluatorOptions& options)>;
void set_model_evaluator_factory(ModelEvaluatorFactory factory);

std::unique_ptr<Player> make_player(std::string_view spec, const games::Game& game, std::uint64_t seed);

// "name (options…): description" lines for --help texts.
std::string describe_player_kinds();

}  // namespace pz::arena

// Players backed by a network checkpoint, and their registration with the arena:
//
//   mcts:model=CHECKPOINT,sims=N,…   the arena's PUCT player with the network as evaluator
//                                    (every other mcts option applies; batch=K gathers K
//                                    leaves per network call under virtual loss; sym=K
//                                    averages each position over K symmetric boards)
//   policy:model=CHECKPOINT[,temp=T,sym=K,backend=B,nnthreads=N,seed=N]
//                                    the raw policy, no search: the most probable legal move,
//                                    or a move sampled ∝ p^(1/T)
//
// pz_arena knows no networks; programs call register_model_players() once at start-up.
// Torch-free: checkpoints are read by model_file.h (a LibTorch archive only where
// nn/libtorch.h is registered) and run by the inference engine's backends. Checkpoints are loaded once per file (and reloaded when the file
// changes), so a match does not re-read a model for every game.
#pragma once

#include <memory>
#include <string>

#include "arena/player_factory.h"
#include "games/game.h"
#include "mcts/evaluator.h"

namespace pz::nn {

void register_model_players();

// An evaluator over the checkpoint at `path`, which must be for `game`; `cache_entries`
// positions are cached, each averaged over `options.symmetries` boards (inference_engine.h),
// run by the named backend with `options.threads` threads (backend.h; empty name: the
// default). Throws util::UsageError with the reason when it cannot.
std::unique_ptr<mcts::Evaluator> make_model_evaluator(const std::string& path, const games::Game& game,
                                                      std::size_t cache_entries = 1 << 14,
                                                      const arena::ModelEvaluatorOptions& options = {});

}  // namespace pz::nn

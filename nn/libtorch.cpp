#include "nn/libtorch.h"

#include <torch/torch.h>

#include <mutex>

#include "nn/backend.h"
#include "games/registry.h"
#include "nn/checkpoint.h"
#include "nn/model_file.h"
#include "nn/torch_backend.h"

namespace pz::nn {

namespace {

ModelFile read_archive_model(const std::string& path) {
  LoadedModel model = load_model(path);
  return {std::move(model.info), export_weights(*model.net)};
}

void write_archive_model(const std::string& path, const ModelInfo& info, const NetWeights& weights) {
  const auto game = games::make_game(info.game);
  PolicyValueNet net = make_network(info.network, game->info());
  import_weights(weights, *net);
  save_model(path, *net, info);
}

}  // namespace

void register_libtorch() {
  static std::once_flag once;
  std::call_once(once, [] {
    torch::set_num_threads(1);
    set_torch_backend_factory(make_torch_backend);
    set_archive_model_reader(read_archive_model);
    set_archive_model_writer(write_archive_model);
  });
}

}  // namespace pz::nn

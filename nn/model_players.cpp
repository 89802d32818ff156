#include "nn/model_players.h"

#include <cmath>
#include <filesystem>
#include <map>
#include <mutex>

#include "arena/player_factory.h"
#include "games/registry.h"
#include "nn/inference_engine.h"
#include "nn/model_file.h"
#include "util/error.h"

namespace pz::nn {

namespace {

// A checkpoint's weights and the game it was trained for.
struct PlayableModel {
  ModelFile file;
  std::string network_spec;  // its game's network_spec (games/game.h)
};

PlayableModel read_playable_model(const std::string& path) {
  PlayableModel model{read_model_file(path), {}};
  try {
    model.network_spec = games::make_game(model.file.info.game)->network_spec().to_string();
  } catch (const util::UsageError& e) {
    checkpoint_unreadable(path, "its game '" + model.file.info.game + "' is not available here (" + e.what() + ")");
  }
  return model;
}

// Loaded checkpoints by path, valid while the file's modification time is unchanged.
std::shared_ptr<const PlayableModel> cached_model(const std::string& path) {
  static std::mutex mutex;
  static std::map<std::string, std::pair<std::filesystem::file_time_type, std::shared_ptr<const PlayableModel>>> cache;
  std::error_code ec;
  const auto mtime = std::filesystem::last_write_time(path, ec);
  std::lock_guard lock(mutex);
  auto it = cache.find(path);
  if (!ec && it != cache.end() && it->second.first == mtime) return it->second.second;
  auto model = std::make_shared<const PlayableModel>(read_playable_model(path));
  if (!ec) cache[path] = {mtime, model};
  return model;
}

class PolicyPlayer final : public arena::Player {
 public:
  PolicyPlayer(std::string name, const games::Game& game, std::unique_ptr<mcts::Evaluator> evaluator, double temperature,
               std::uint64_t seed)
      : name_(std::move(name)), game_(game), evaluator_(std::move(evaluator)), temperature_(temperature), rng_(seed) {}

  std::string name() const override { return name_; }

  games::Action choose_action(const games::State& state, games::Player seat) override {
    std::vector<games::Action> legal;
    state.legal_actions(seat, legal);
    if (legal.empty()) throw std::logic_error("policy player: no legal action");
    std::vector<float> priors(legal.size()), values(static_cast<std::size_t>(game_.info().num_players));
    const mcts::EvalRequest request{&state, legal, priors.data(), values.data()};
    evaluator_->evaluate(std::span<const mcts::EvalRequest>(&request, 1));
    if (temperature_ <= 0) {
      std::size_t best = 0;
      for (std::size_t i = 1; i < priors.size(); ++i) {
        if (priors[i] > priors[best]) best = i;
      }
      return legal[best];
    }
    std::vector<double> weights(priors.size());
    double total = 0;
    for (std::size_t i = 0; i < priors.size(); ++i) {
      weights[i] = std::pow(std::max(1e-30, static_cast<double>(priors[i])), 1.0 / temperature_);
      total += weights[i];
    }
    double r = rng_.uniform() * total;
    for (std::size_t i = 0; i < weights.size(); ++i) {
      r -= weights[i];
      if (r <= 0) return legal[i];
    }
    return legal.back();
  }

 private:
  std::string name_;
  const games::Game& game_;
  std::unique_ptr<mcts::Evaluator> evaluator_;
  double temperature_;
  util::Rng rng_;
};

}  // namespace

std::unique_ptr<mcts::Evaluator> make_model_evaluator(const std::string& path, const games::Game& game,
                                                      std::size_t cache_entries,
                                                      const arena::ModelEvaluatorOptions& evaluator) {
  const auto model = cached_model(path);
  if (model->network_spec != game.network_spec().to_string()) {
    throw util::UsageError("model checkpoint " + path + " was trained for " + model->file.info.game + ", not for " +
                           game.spec().to_string());
  }
  InferenceOptions options;
  options.max_batch = 64;
  options.cache_entries = cache_entries;
  options.symmetries = evaluator.symmetries;
  if (!evaluator.backend.empty()) options.backend.name = evaluator.backend;
  options.backend.threads = evaluator.threads;
  options.backend.winograd = evaluator.winograd;
  return std::make_unique<InferenceEngine>(game, model->file.info.network, model->file.weights, options);
}

void register_model_players() {
  arena::set_model_evaluator_factory(
      [](const std::string& path, const games::Game& game, const arena::ModelEvaluatorOptions& options) {
        return make_model_evaluator(path, game, 1 << 14, options);
      });
  util::OptionSchema options;
  options.add_string("model", "", "network checkpoint (required)")
      .add_double("temp", 0.0, "sampling temperature (0: the most probable move)", 0.0)
      .add_int("seed", -1, "random seed (-1: derived from the match seed)", -1);
  arena::add_model_evaluator_options(options);
  arena::register_player_kind(
      {"policy", "the raw policy of a network checkpoint, no search", std::move(options),
       [](const util::OptionSchema::Values& v, const util::Spec& spec, const games::Game& game, std::uint64_t seed) {
         const std::string& model = v.get_string("model");
         if (model.empty()) throw util::UsageError("player 'policy': model=CHECKPOINT is required");
         const int own = v.get_int("seed");
         const arena::ModelEvaluatorOptions evaluator = arena::model_evaluator_options(v);
         return std::unique_ptr<arena::Player>(std::make_unique<PolicyPlayer>(
             spec.to_string(), game, make_model_evaluator(model, game, 1 << 14, evaluator),
             v.get_double("temp"),
             own >= 0 ? static_cast<std::uint64_t>(own) : seed));
       }});
}

}  // namespace pz::nn

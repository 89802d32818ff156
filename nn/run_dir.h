// A training run's directory:
//
//   config.json                the resolved config (train_config.h)
//   metrics.jsonl              one JSON object per line: "kind": "train" | "eval" | "event"
//   games.jsonl                every self-play game: moves in the game's notation, returns
//   checkpoints/step-00001200/ model.pt (a model checkpoint), learner.pt (optimiser,
//                              scheduler, step, torch RNG), replay.bin, state.json (counters)
//   models/latest.pt           the newest checkpoint's model, for `mcts:model=RUN/models/latest.pt`
//   models/step-00001200.pt    every model that was evaluated (the newest is the next evaluation's
//                              "previous" opponent; `polyzero tournament --run` rates them all)
//
// Model files are LibTorch archives (.pt) in a build with LibTorch, safetensors files
// (.safetensors: model.safetensors, models/latest.safetensors) in one without; a run keeps
// the form it started with. The learner state is learner.safetensors from the poly learner,
// learner.pt from LibTorch's (training_learner.h).
//   plots/*.svg                loss, lr and strength curves
//   tournament.sqlite, ratings.svg   written by `polyzero tournament --run` (game records,
//                              the models' ratings against training step)
//
// A checkpoint directory is written under a temporary name and renamed when complete, so a
// run killed at any moment resumes from its newest complete checkpoint; leftovers of an
// interrupted write are removed on resume. The newest `keep` checkpoints are kept. Each
// checkpoint ends with manifest.json (every file's size and FNV-1a checksum), so damage
// after the write is found before anything is loaded; a damaged checkpoint is renamed
// damaged-step-N (kept for inspection, never resumed from).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pz::nn {

class RunDir {
 public:
  // The model files' extension is the one the run's models have (".safetensors" when
  // models/ or the newest checkpoint holds such files, else ".pt"), until
  // set_model_extension says otherwise.
  explicit RunDir(std::string root);
  void set_model_extension(std::string extension) { model_extension_ = std::move(extension); }
  const std::string& model_extension() const { return model_extension_; }

  const std::string& root() const { return root_; }
  std::string config_path() const { return root_ + "/config.json"; }
  std::string metrics_path() const { return root_ + "/metrics.jsonl"; }
  std::string games_path() const { return root_ + "/games.jsonl"; }
  std::string checkpoints_dir() const { return root_ + "/checkpoints"; }
  std::string models_dir() const { return root_ + "/models"; }
  std::string plots_dir() const { return root_ + "/plots"; }
  std::string checkpoint_dir(std::int64_t step) const;
  std::string model_path(std::int64_t step) const;  // models/step-N.pt
  std::string latest_model_path() const { return models_dir() + "/latest" + model_extension_; }

  // Creates the layout. Refuses (util::UsageError) a directory that already holds a run.
  void create_new() const;
  // Checks there is a run here and removes the debris of interrupted writes.
  void open_existing() const;

  // Steps of the complete checkpoints, ascending.
  std::vector<std::int64_t> checkpoint_steps() const;
  // Writes manifest.json of the files in checkpoint directory `dir`; the last write into it.
  static void write_manifest(const std::string& dir);
  // Throws util::UsageError naming the first file of `dir` that is missing or differs from
  // its manifest (or that the manifest is missing or corrupt).
  static void verify_manifest(const std::string& dir);
  // Renames checkpoint `step` to damaged-step-N, out of checkpoint_steps().
  void set_aside_damaged(std::int64_t step) const;
  // Steps of models/step-N.pt files, ascending.
  std::vector<std::int64_t> model_steps() const;
  // True when the run has trained past step 0 by any record that survives its checkpoints:
  // metric lines of a later step, models/latest.pt, step-N models, damaged checkpoints.
  // A resume that finds no usable checkpoint in such a run must refuse, not start over.
  bool has_trained() const;
  // Removes all but the newest `keep` checkpoints.
  void prune_checkpoints(int keep) const;
  // Drops metric lines of steps after `step` (written after the checkpoint a resumed run
  // restarts from) and any torn last line; rewrites the file atomically.
  void truncate_metrics_after(std::int64_t step) const;

 private:
  std::string root_;
  std::string model_extension_;
};

}  // namespace pz::nn

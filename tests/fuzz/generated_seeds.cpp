#include "tests/fuzz/generated_seeds.h"

#include <algorithm>
#include <filesystem>
#include <stdexcept>

namespace pz::fuzz {

namespace {

namespace fs = std::filesystem;

void run_or_throw(const std::string& program, const std::vector<std::string>& args, const fs::path& dir,
                  const ChildLimits& limits) {
  ChildRun run;
  run.argv.push_back(program);
  run.argv.insert(run.argv.end(), args.begin(), args.end());
  run.working_dir = dir.string();
  run.stdout_path = (dir / "seed.out").string();
  run.stderr_path = (dir / "seed.err").string();
  ChildLimits generous = limits;
  generous.seconds = std::max(limits.seconds, 120.0);
  const ChildOutcome outcome = run_limited(run, generous);
  if (outcome.kind == ChildOutcome::Kind::kExited && outcome.exit_code == 0) return;
  std::string command;
  for (const auto& a : run.argv) command += (command.empty() ? "" : " ") + a;
  throw std::runtime_error("cli_fuzz: writing a seed failed (" + describe(outcome) + "): " + command + "\n" +
                           read_head(run.stderr_path, 2000));
}

}  // namespace

void add_generated_seeds(Corpus& corpus, const std::string& program, const std::string& work_dir,
                         const ChildLimits& limits) {
  const fs::path dir(work_dir);
  fs::create_directories(dir);
  // Two learner steps of tic-tac-toe: a checkpoint, a model and every file a run keeps.
  corpus.model_game = "tictactoe";
  corpus.run_steps = 2;
  run_or_throw(program,
               {"train", "--game=tictactoe", "--steps=2", "--run-dir=run", "-q", "--set", "replay.min_samples=64",
                "--set", "learner.batch_size=16", "--set", "eval.every_steps=0", "--set", "selfplay.threads=1"},
               dir, limits);
  std::vector<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(dir / "run"))
    if (entry.is_regular_file()) files.push_back(entry.path());
  std::sort(files.begin(), files.end());  // directory order is not deterministic
  for (const auto& path : files)
    corpus.run_files.push_back({fs::relative(path, dir / "run").string(), read_file(path.string())});
  corpus.model = read_file((dir / "run/models/latest.pt").string());

  corpus.record_game = "tictactoe";
  run_or_throw(program,
               {"tournament", "--game=tictactoe", "--players", "random", "uct:sims=10", "--games=4", "--seed=1",
                "--db=record.sqlite", "-q"},
               dir, limits);
  corpus.record = read_file((dir / "record.sqlite").string());
  if (corpus.model.empty() || corpus.record.empty())
    throw std::runtime_error("cli_fuzz: the seed run wrote no model or no record in " + dir.string());
}

}  // namespace pz::fuzz

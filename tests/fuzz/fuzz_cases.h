// The CLI fuzz cases: a seed corpus of valid inputs from the repository, and case number
// `index` of a seeded sequence, built from it by the mutators (mutators.h). A case is one
// `polyzero` command line that must return quickly: it never starts a training run (every
// `train` case carries --print-config, given first), never runs external programs, never
// writes outside its own directory, and asks for no long search (player budgets come from
// small valid values or invalid ones).
//
// Case i depends only on (corpus, seed, i): raising the case count only appends cases.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pz::fuzz {

struct Corpus {
  std::vector<std::string> c_sources;           // polyc inputs: tests/polyhedral/kernels and built-in ones
  std::vector<std::string> train_configs;       // configs/*.json
  std::vector<std::string> train_config_games;  // the game of each, from its file name
  std::vector<std::string> lr_configs;          // scheduler configs, built in and from the train configs
  std::vector<std::string> set_keys;            // the train configs' fields as --set paths (learner.steps)
};

// Reads the corpus from the source tree; throws std::runtime_error naming a missing file.
Corpus load_corpus(const std::string& source_dir);

struct CaseFile {
  std::string name;  // inside the case's directory
  std::string content;
};

struct FuzzCase {
  std::string target;             // polyc, report-net, lr, train-config, train-set, player, game
  std::vector<std::string> args;  // after the program; "@DIR@" stands for the case's directory
  std::vector<CaseFile> files;    // written into the case's directory before the run
  double timeout_scale = 1;       // times the per-case limit (a network's whole plan takes longer)
};

FuzzCase make_case(const Corpus& corpus, std::uint64_t seed, int index);

// The targets in the order summaries list them.
const std::vector<std::string>& target_names();

}  // namespace pz::fuzz

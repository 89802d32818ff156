// The CLI fuzz cases: a seed corpus of valid inputs from the repository, and case number
// `index` of a seeded sequence, built from it by the mutators (mutators.h). A case is one
// `polyzero` command line that must return quickly: it never starts a training run (every
// `train` case carries --print-config, given first, or resumes a tiny run for one step),
// never runs external programs (the hostile seats that would are what an `http` or
// `analyze --untrusted` case checks are refused), never writes outside its own directory,
// and asks for no long search (player budgets come from small valid values or invalid ones).
//
// Case i depends only on (corpus, seed, i): raising the case count only appends cases. (The
// generated seeds hold timestamps, so a damaged-file case differs in those bytes between runs.)
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace pz::fuzz {

struct CaseFile {
  std::string name;  // inside the case's directory; may name subdirectories (run/config.json)
  std::string content;
};

struct Corpus {
  std::vector<std::string> c_sources;           // polyc inputs: tests/polyhedral/kernels and built-in ones
  std::vector<std::string> train_configs;       // configs/*.json
  std::vector<std::string> train_config_games;  // the game of each, from its file name
  std::vector<std::string> lr_configs;          // scheduler configs, built in and from the train configs
  std::vector<std::string> set_keys;            // the train configs' fields as --set paths (learner.steps)

  // Written by the binary under test when the driver starts (add_generated_seeds), so that
  // damaged-file cases start from the formats it writes: a small run directory (file names
  // relative to it, stopped at `run_steps`), its model, and a tournament record.
  std::vector<CaseFile> run_files;
  std::int64_t run_steps = 0;
  std::string model, model_game;
  std::string record, record_game;
};

// Reads the corpus from the source tree; throws std::runtime_error naming a missing file.
Corpus load_corpus(const std::string& source_dir);

// A seed file's bytes; throws std::runtime_error naming a file that cannot be read.
std::string read_file(const std::string& path);

// What an `http` case sends to the server it starts (`polyzero serve --port=0 ...`, its
// args): raw HTTP/1.1 requests, each on a connection of its own, in which @SESSION@ stands
// for the id of a session the driver created and @HOST@ for the server's host:port; then
// `event_streams` event streams opened at once, during which the server must still answer.
struct HttpScript {
  std::vector<std::string> requests;
  int event_streams = 0;
};

struct FuzzCase {
  FuzzCase(std::string target_name, std::vector<std::string> arguments, std::vector<CaseFile> case_files = {},
           double scale = 1)
      : target(std::move(target_name)), args(std::move(arguments)), files(std::move(case_files)), timeout_scale(scale) {}

  std::string target;             // one of target_names()
  std::vector<std::string> args;  // after the program; "@DIR@" stands for the case's directory
  std::vector<CaseFile> files;    // written into the case's directory before the run
  double timeout_scale = 1;       // times the per-case limit (a network's whole plan takes longer)
  std::string stdin_text;         // the program's standard input ("@DIR@" substituted)
  HttpScript http;                // target http: the requests to the server
};

FuzzCase make_case(const Corpus& corpus, std::uint64_t seed, int index);

// The targets in the order summaries list them.
const std::vector<std::string>& target_names();

}  // namespace pz::fuzz

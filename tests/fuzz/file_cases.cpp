// Fuzz cases for the files the product reads back: models, training run directories and
// tournament records (case_builders.h). The seeds are the binary's own (Corpus), so a case
// damages exactly the format the binary under test writes.
#include "tests/fuzz/case_builders.h"

namespace pz::fuzz {

namespace {

// Byte damage (flips, spans, splices, truncation), or a clean cut at a random length.
std::string damaged(Mutator& m, const std::string& content) {
  if (m.chance(0.2)) return content.substr(0, static_cast<std::size_t>(m.pick(0, static_cast<int>(content.size()))));
  return m.mutate_bytes(content, {}, false);
}

const std::string kModelSpec = "@DIR@/model.pt";

}  // namespace

FuzzCase damaged_model_case(Mutator& m, const Corpus& corpus) {
  FuzzCase c{"damaged-model", {}, {{"model.pt", m.chance(0.95) ? damaged(m, corpus.model) : corpus.model}}};
  const std::string game = m.chance(0.85) ? corpus.model_game : "connect4";  // another game's board is refused
  switch (m.pick(0, 4)) {
    case 0:
      c.args = {"info", kModelSpec};
      break;
    case 1:
      c.args = {"match", "--game=" + game, "--p1=mcts:model=" + kModelSpec + ",sims=4", "--p2=random", "--games=1", "-q"};
      break;
    case 2:
      c.args = {"play", "--game=" + game, "--p1=policy:model=" + kModelSpec, "--p2=random"};
      break;
    case 3:
      c.args = {"analyze", "--model=" + game + "=" + kModelSpec};
      c.stdin_text = "{\"id\":\"q\",\"game\":\"" + game + "\",\"moves\":[],\"sims\":4}\n";
      break;
    default:
      c.args = {"match", "--game=" + game, "--p1=mcts:model=" + kModelSpec + ",sims=4,backend=poly", "--p2=random",
                "--games=1", "-q"};
  }
  return c;
}

FuzzCase damaged_run_case(Mutator& m, const Corpus& corpus) {
  FuzzCase c{"damaged-run", {}, {}, 2.0};
  const auto victim = static_cast<std::size_t>(m.pick(0, static_cast<int>(corpus.run_files.size()) - 1));
  const bool remove = m.chance(0.15);
  for (std::size_t i = 0; i < corpus.run_files.size(); ++i) {
    const CaseFile& f = corpus.run_files[i];
    if (i == victim && remove) continue;
    c.files.push_back({"run/" + f.name, i == victim ? damaged(m, f.content) : f.content});
  }
  switch (m.pick(0, 2)) {
    case 0:
      c.args = {"info", "@DIR@/run"};
      break;
    case 1:
      // Resumes and stops at once: one learner step past the checkpoint, or the time limit.
      c.args = {"train", "--resume=@DIR@/run", "--steps=" + std::to_string(corpus.run_steps + 1), "--minutes=0.1", "-q"};
      break;
    default:
      c.args = {"tournament", "--run=@DIR@/run", "--games=2", "--sims=4", "-q"};
  }
  return c;
}

FuzzCase damaged_record_case(Mutator& m, const Corpus& corpus) {
  FuzzCase c{"damaged-record", {}, {{"record.sqlite", m.chance(0.95) ? damaged(m, corpus.record) : corpus.record}}};
  switch (m.pick(0, 4)) {
    case 0:
      c.args = {"replay", "--db=@DIR@/record.sqlite"};
      break;
    case 1:
      c.args = {"replay", "--db=@DIR@/record.sqlite", "--tournament=" + m.option_value({"1", "2"})};
      break;
    case 2:
      c.args = {"replay", "--db=@DIR@/record.sqlite", "--game-id=" + m.option_value({"1", "3"})};
      break;
    case 3:
      c.args = {"replay", "--db=@DIR@/record.sqlite", "--game-id=1", "--sgf"};
      break;
    default:
      c.args = {"tournament", "--db=@DIR@/record.sqlite", "--game=" + corpus.record_game, "--players", "random",
                "uct:sims=10", "--games=4", "-q"};
  }
  return c;
}

}  // namespace pz::fuzz

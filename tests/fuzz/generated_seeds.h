// Seeds that only the binary under test can write: a tiny training run (its directory and
// model) and a tournament record, made once when the driver starts (fuzz_cases.h: Corpus).
#pragma once

#include <string>

#include "tests/fuzz/fuzz_cases.h"
#include "tests/fuzz/limited_child.h"

namespace pz::fuzz {

// Runs `program` in `work_dir` (which it fills) and adds what it wrote to `corpus`; throws
// std::runtime_error with the command and its stderr when a command fails.
void add_generated_seeds(Corpus& corpus, const std::string& program, const std::string& work_dir,
                         const ChildLimits& limits);

}  // namespace pz::fuzz

// The builders of fuzz_cases.cpp's targets that live in files of their own, and the pieces
// they share with it. Internal to the fuzz driver.
#pragma once

#include <string>

#include "tests/fuzz/fuzz_cases.h"
#include "tests/fuzz/mutators.h"

namespace pz::fuzz {

// A player spec from the kinds that compute (random, uct, mcts, policy, solver): small valid
// budgets, extreme values, misspelt keys or broken syntax.
std::string player_spec(Mutator& m);

// A seat spec a hostile web page or query would send: players that run commands or open
// files (naming @DIR@/pwned, which must never appear), budgets past the limits, invalid
// UTF-8, or player_spec's.
std::string hostile_spec(Mutator& m);

// The file a hostile seat would create when it runs a command or opens a log: the driver
// fails any case after which it exists in the case's directory.
inline const char* kPwnedFile = "pwned";

// Protocol targets (protocol_cases.cpp): `analyze` and `gtp` read their standard input;
// `http` starts `polyzero serve` and talks to it (FuzzCase::http).
FuzzCase analyze_case(Mutator& m);
FuzzCase gtp_case(Mutator& m);
FuzzCase http_case(Mutator& m);

// Damaged files (file_cases.cpp): the binary's own model, run directory and tournament
// record (Corpus's generated seeds), mutated, truncated or with a file missing, given to
// the commands that read them.
FuzzCase damaged_model_case(Mutator& m, const Corpus& corpus);
FuzzCase damaged_run_case(Mutator& m, const Corpus& corpus);
FuzzCase damaged_record_case(Mutator& m, const Corpus& corpus);

}  // namespace pz::fuzz

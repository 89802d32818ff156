// The C preprocessor in front of polyc's frontend, for sources whose regions are written
// with macros (PolyBench spells its loops `_PB_N`, `SCALAR_VAL(0.5)`, `SQRT_FUN(x)`, and
// its sizes come from a header chosen by -DLARGE_DATASET). The frontend reads no macros
// beyond `#define NAME <int>`; rather than a second, partial preprocessor, polyc asks the
// system's: `CC -E -P FLAGS FILE` (CC from $CC, else `cc`), which keeps `#pragma scop`
// lines. polyc() then parses each region from that text and puts its code in place of the
// same region of the file as written (polyc.h), so includes and macros outside the regions
// stay as they were.
#pragma once

#include <string>
#include <vector>

namespace pz::poly {

struct PreprocessOptions {
  std::string compiler;            // empty: $CC, else "cc"
  std::vector<std::string> flags;  // -D, -I, -U, -include ... as given to the compiler
};

// The preprocessed text of the file at `path`. Throws util::UsageError naming the command and
// the preprocessor's first messages when it fails (a missing header, a bad flag).
std::string preprocess_c_file(const std::string& path, const PreprocessOptions& options);

}  // namespace pz::poly

// Where polyzero finds the files it ships beside its executable (game configs, the browser
// client, the benchmark kernels): relative to the executable, never at a path fixed when it
// was built, so a moved source tree, a fresh clone and an install all work.
//
// A directory is looked for, in order, at
//   1. $ENV (when the variable is set: then only there);
//   2. for the executable's directory and its parent and grandparent, BASE:
//        BASE/share/polyzero/INSTALLED   (an install: PREFIX/bin/polyzero)
//        BASE/SOURCE                      (a source tree: build/polyzero, build/tests/x)
//   3. SOURCE under the working directory.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace pz::util {

struct DataDir {
  std::string env;        // "PZ_CONFIG_DIR"
  std::string installed;  // "configs": share/polyzero/configs in an install
  std::string source;     // "configs", "tests/polyhedral/kernels": in the source tree
  std::string probe;      // a file the directory must hold ("" : any directory)
};

// Every place looked at, in order.
std::vector<std::string> data_dir_candidates(const DataDir& dir);

// The first candidate that is a directory holding `probe`; nullopt when there is none.
std::optional<std::string> find_data_dir(const DataDir& dir);

// find_data_dir, or a util::UsageError naming `what`, every place looked at and the variable
// that points elsewhere.
std::string require_data_dir(const DataDir& dir, const std::string& what);

}  // namespace pz::util

// Shared by the differential and fuzz tests: compile a C program with gcc and run it.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>

#include <unistd.h>

namespace pz::poly::test_support {

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// A scratch directory under the system's temporary one, named after `name` and the process,
// removed with everything in it when the object dies.
class Workdir {
 public:
  explicit Workdir(const std::string& name)
      : path_(std::filesystem::temp_directory_path() / ("pz_poly_" + name + "_" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(path_);
  }
  ~Workdir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  Workdir(const Workdir&) = delete;
  Workdir& operator=(const Workdir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

struct RunResult {
  bool ok = false;
  std::string output;  // the program's stdout when ok
  std::string error;   // gcc's messages, or why the run failed
};

// Writes dir/name.c, compiles it with `gcc flags`, runs it with 2 OpenMP threads (passive
// waiting: the test machine is shared) under a 60 s limit. Parallel loops get both threads
// however busy the machine is (-DPZ_POLYC_FIXED_TEAM, busy_machine.h): the tests check them
// on two.
inline RunResult compile_and_run(const std::filesystem::path& dir, const std::string& name, const std::string& source,
                                 const std::string& flags) {
  namespace fs = std::filesystem;
  fs::path c = dir / (name + ".c"), exe = dir / name, log = dir / (name + ".log"), out = dir / (name + ".out");
  std::ofstream(c) << source;
  RunResult r;
  std::string cmd = "gcc -DPZ_POLYC_FIXED_TEAM " + flags + " -o " + exe.string() + " " + c.string() + " -lm > " + log.string() + " 2>&1";
  if (std::system(cmd.c_str()) != 0) {
    r.error = "gcc failed:\n" + slurp(log);
    return r;
  }
  std::string run = "OMP_NUM_THREADS=2 OMP_WAIT_POLICY=PASSIVE timeout 60 " + exe.string() + " > " + out.string();
  if (std::system(run.c_str()) != 0) {
    r.error = "the program failed";
    return r;
  }
  r.ok = true;
  r.output = slurp(out);
  return r;
}

}  // namespace pz::poly::test_support

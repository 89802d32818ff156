// Data directories are found beside the executable or through the environment, never at a
// path fixed at build time (util/data_dirs.h).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "util/data_dirs.h"
#include "util/error.h"

namespace pz::util {
namespace {

namespace fs = std::filesystem;

struct ScopedEnv {
  ScopedEnv(const char* name, const std::string& value) : name(name) { setenv(name, value.c_str(), 1); }
  ~ScopedEnv() { unsetenv(name); }
  const char* name;
};

fs::path fresh_dir(const std::string& name) {
  fs::path dir = fs::temp_directory_path() / ("pz_data_dirs_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

TEST(DataDirs, TheSourceTreeIsFoundFromTheTestBinary) {
  // tests run as build/tests/util_test: the grandparent is the source tree.
  const auto dir = find_data_dir({"PZ_TEST_UNSET_DIR", "kernels", "tests/polyhedral/kernels", "gemm.c"});
  ASSERT_TRUE(dir.has_value());
  EXPECT_TRUE(fs::exists(fs::path(*dir) / "gemm.c"));
}

TEST(DataDirs, TheEnvironmentVariableIsTheOnlyPlaceWhenSet) {
  const fs::path dir = fresh_dir("env");
  std::ofstream(dir / "probe.txt") << "x";
  ScopedEnv env("PZ_TEST_DATA_DIR", dir.string());
  EXPECT_EQ(data_dir_candidates({"PZ_TEST_DATA_DIR", "a", "b", "probe.txt"}), std::vector<std::string>{dir.string()});
  EXPECT_EQ(find_data_dir({"PZ_TEST_DATA_DIR", "a", "b", "probe.txt"}), dir.string());
  // A directory without the probe file does not count.
  EXPECT_FALSE(find_data_dir({"PZ_TEST_DATA_DIR", "a", "b", "missing.txt"}).has_value());
  fs::remove_all(dir);
}

TEST(DataDirs, AMissingDirectorySaysWhereItLookedAndWhatToSet) {
  try {
    require_data_dir({"PZ_TEST_UNSET_DIR", "nothing-here", "no/such/dir", "x.c"}, "the test data");
    FAIL() << "expected an error";
  } catch (const UsageError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("cannot find the test data (a directory holding x.c)"), std::string::npos) << what;
    EXPECT_NE(what.find("share/polyzero/nothing-here"), std::string::npos) << what;
    EXPECT_NE(what.find("set PZ_TEST_UNSET_DIR"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace pz::util

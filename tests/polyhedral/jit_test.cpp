// The JIT: polyc's output compiled into a shared object, loaded and called; the on-disk
// cache (a second load does not compile); two processes loading the same new kernel at
// once (one compiles, the other waits for it; no temporary left behind); compile errors.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "polyhedral/polyc.h"
#include "polyhedral/runtime/jit.h"

namespace pz::poly {
namespace {

namespace fs = std::filesystem;

// An integer gemm-like kernel (exact results whatever the schedule), exported as
// `long checksum(void)`.
std::string kernel(int n) {
  std::string N = std::to_string(n);
  return "#define N " + N +
         "\nstatic int A[N][N], B[N][N], C[N][N];\n"
         "long checksum(void) {\n  int i, j, k;\n  long s = 0;\n"
         "  for (i = 0; i < N; i++) for (j = 0; j < N; j++) { A[i][j] = (i * 3 + j) % 7; B[i][j] = (i + 2 * j) % 5; C[i][j] = 0; }\n"
         "#pragma scop\n  for (i = 0; i < N; i++)\n    for (j = 0; j < N; j++)\n      for (k = 0; k < N; k++)\n"
         "        C[i][j] += A[i][k] * B[k][j];\n#pragma endscop\n"
         "  for (i = 0; i < N; i++) for (j = 0; j < N; j++) s += (long)C[i][j] * (i + 1) + j;\n  return s;\n}\n";
}

class JitTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = fs::temp_directory_path() / ("pz_poly_jit_" + std::to_string(::getpid())); }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  fs::path dir_;
};

TEST_F(JitTest, PolycOutputRunsAndIsCached) {
  JitCache cache(dir_.string());
  PolycOptions o;
  o.parallel = o.vectorize = true;
  o.min_parallel_work = 0;
  auto original = cache.load(kernel(40));
  auto optimised = cache.load(polyc(kernel(40), o).output);
  EXPECT_FALSE(original->from_cache());
  EXPECT_FALSE(optimised->from_cache());
  EXPECT_NE(original->path(), optimised->path());
  const long expected = original->function<long()>("checksum")();
  EXPECT_EQ(optimised->function<long()>("checksum")(), expected);
  EXPECT_GT(expected, 0);
  // Same source, compiler and flags: found on disk, no compile.
  JitCache again(dir_.string());
  auto cached = again.load(polyc(kernel(40), o).output);
  EXPECT_TRUE(cached->from_cache());
  EXPECT_EQ(cached->path(), optimised->path());
  // Other flags are another key.
  EXPECT_NE(JitCache(dir_.string(), "gcc", "-O2 -fPIC -shared -fopenmp").key(kernel(40)), cache.key(kernel(40)));
  EXPECT_THROW(original->symbol("no_such_symbol"), std::runtime_error);
}

TEST_F(JitTest, TwoProcessesCompileTheSameKernelOnce) {
  const std::string source = kernel(64);
  pid_t children[2];
  for (pid_t& child : children) {
    child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      int code = 1;
      try {
        JitCache cache(dir_.string());
        auto m = cache.load(source);
        code = m->function<long()>("checksum")() > 0 ? (m->from_cache() ? 10 : 20) : 2;
      } catch (...) {
        code = 3;
      }
      ::_exit(code);
    }
  }
  int compiled = 0, cached = 0;
  for (pid_t child : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status));
    int code = WEXITSTATUS(status);
    ASSERT_TRUE(code == 10 || code == 20) << "child exit code " << code;
    (code == 20 ? compiled : cached)++;
  }
  EXPECT_EQ(compiled, 1);
  EXPECT_EQ(cached, 1);
  int objects = 0, leftovers = 0;
  for (const auto& e : fs::directory_iterator(dir_)) {
    std::string ext = e.path().extension().string();
    if (ext == ".so") ++objects;
    else if (ext != ".lock" && ext != ".c") ++leftovers;
  }
  EXPECT_EQ(objects, 1);
  EXPECT_EQ(leftovers, 0);
}

TEST_F(JitTest, CorruptCacheEntryIsRebuilt) {
  JitCache cache(dir_.string());
  const std::string source = kernel(7);
  const std::string so = (dir_ / (cache.key(source) + ".so")).string();
  std::ofstream(so, std::ios::binary | std::ios::trunc) << "not an ELF object";
  auto m = cache.load(source);
  EXPECT_FALSE(m->from_cache());
  EXPECT_TRUE(fs::exists(dir_ / (cache.key(source) + ".c")));
  auto again = JitCache(dir_.string()).load(source);
  EXPECT_TRUE(again->from_cache());
}

TEST_F(JitTest, CompileErrorThrowsAndCachesNothing) {
  JitCache cache(dir_.string());
  try {
    cache.load("int broken( {\n");
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("error"), std::string::npos) << e.what();
  }
  for (const auto& e : fs::directory_iterator(dir_)) EXPECT_EQ(e.path().extension(), ".lock") << e.path();
}

}  // namespace
}  // namespace pz::poly

#include "polyhedral/frontend/preprocess.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "polyhedral/frontend/c_frontend.h"
#include "polyhedral/runtime/shell.h"
#include "util/error.h"

namespace pz::poly {

namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// A temporary file removed when it goes out of scope.
class TempFile {
 public:
  explicit TempFile(const char* suffix) {
    std::string tmpl = (fs::temp_directory_path() / "pz_polyc_cpp_XXXXXX").string() + suffix;
    const int fd = ::mkstemps(tmpl.data(), static_cast<int>(std::string(suffix).size()));
    if (fd < 0) throw std::runtime_error("polyc: cannot create a temporary file for the preprocessor");
    ::close(fd);
    path_ = tmpl;
  }
  ~TempFile() {
    std::error_code ec;
    fs::remove(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

}  // namespace

std::string preprocess_c_file(const std::string& path, const PreprocessOptions& options) {
  std::string cc = options.compiler;
  if (cc.empty()) {
    const char* env = std::getenv("CC");
    cc = env && *env ? env : "cc";
  }
  std::string cmd = cc + " -E -P";
  for (const auto& f : options.flags) cmd += " " + shell_quote(f);
  cmd += " " + shell_quote(path);
  TempFile out(".i"), err(".log");
  const int rc = std::system((cmd + " > " + shell_quote(out.path().string()) + " 2> " + shell_quote(err.path().string())).c_str());
  if (rc != 0) {
    std::istringstream messages(slurp(err.path()));
    std::string line, first;
    for (int n = 0; n < 6 && std::getline(messages, line); ++n) first += "\n  " + line;
    const int status = rc == -1 ? -1 : WIFEXITED(rc) ? WEXITSTATUS(rc) : 128 + WTERMSIG(rc);
    throw util::UsageError("the preprocessor failed (status " + std::to_string(status) + "): " + cmd + first);
  }
  std::error_code ec;
  if (fs::file_size(out.path(), ec) > kMaxSourceBytes)
    throw util::UsageError("the preprocessed " + path + " is larger than the " + std::to_string(kMaxSourceBytes >> 20) +
                           " MiB polyc reads");
  return slurp(out.path());
}

}  // namespace pz::poly

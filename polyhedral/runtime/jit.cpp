#include "polyhedral/runtime/jit.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <sstream>
#include <vector>
#include <stdexcept>

#include "polyhedral/runtime/shell.h"
#include "util/files.h"
#include "util/fnv1a.h"

namespace pz::poly {

namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Holds an exclusive flock on a file for its lifetime.
class FileLock {
 public:
  explicit FileLock(const fs::path& path) : fd_(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644)) {
    if (fd_ < 0) throw std::runtime_error("jit: cannot open lock " + path.string() + ": " + std::strerror(errno));
    while (::flock(fd_, LOCK_EX) != 0)
      if (errno != EINTR) {
        ::close(fd_);
        throw std::runtime_error("jit: cannot lock " + path.string() + ": " + std::strerror(errno));
      }
  }
  ~FileLock() {
    ::flock(fd_, LOCK_UN);
    ::close(fd_);
  }
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  int fd_;
};

}  // namespace

JitModule::~JitModule() {
  if (handle_) ::dlclose(handle_);
}

void* JitModule::symbol(const std::string& name) const {
  ::dlerror();
  void* p = ::dlsym(handle_, name.c_str());
  if (const char* err = ::dlerror()) throw std::runtime_error("jit: " + path_ + ": " + err);
  if (!p) throw std::runtime_error("jit: " + path_ + ": symbol '" + name + "' is null");
  return p;
}

JitCache::JitCache(std::string dir, std::string compiler, std::string flags)
    : dir_(std::move(dir)), compiler_(std::move(compiler)), flags_(std::move(flags)) {
  fs::create_directories(dir_);
}

std::string JitCache::key(const std::string& source) const {
  std::uint64_t h = util::kFnv1aOffsetBasis;
  for (const std::string* part : {&compiler_, &flags_, &source}) {
    h = util::fnv1a(*part, h);
    h *= util::kFnv1aPrime;  // a zero byte between the parts: ("ab","c") and ("a","bc") differ
  }
  return util::hex64(h);
}

namespace {

// The file this code was loaded from: the executable, or the shared library that links it
// (the Python module); from /proc/self/maps, whose paths are absolute. /proc/self/exe
// where the mapping is not found.
std::string code_file() {
  std::ifstream maps("/proc/self/maps");
  const auto here = reinterpret_cast<std::uintptr_t>(&code_file);
  std::string line;
  while (std::getline(maps, line)) {
    unsigned long long start = 0, end = 0;
    if (std::sscanf(line.c_str(), "%llx-%llx", &start, &end) != 2 || here < start || here >= end) continue;
    const std::size_t slash = line.find('/');
    if (slash != std::string::npos) return line.substr(slash);
    break;
  }
  return "/proc/self/exe";
}

// FNV-1a of the bytes of the file this code was loaded from (code_file), once per process:
// generated sources depend on the generator, which a rebuild changes, whichever program
// loads it. nullopt when it cannot be read.
std::optional<std::uint64_t> executable_hash() {
  static const std::optional<std::uint64_t> hash = []() -> std::optional<std::uint64_t> {
    std::ifstream in(code_file(), std::ios::binary);
    if (!in) return std::nullopt;
    std::uint64_t h = util::kFnv1aOffsetBasis;
    std::vector<char> buffer(1 << 20);
    while (in.read(buffer.data(), static_cast<std::streamsize>(buffer.size())) || in.gcount() > 0) {
      h = util::fnv1a(buffer.data(), static_cast<std::size_t>(in.gcount()), h);
      if (in.eof()) break;
    }
    return h;
  }();
  return hash;
}

}  // namespace

std::string JitCache::generated_source(const std::string& name, const std::function<std::string()>& generate) const {
  const std::optional<std::uint64_t> exe = executable_hash();
  if (!exe) return generate();
  const fs::path path = fs::path(dir_) / ("source-" + util::hex64(util::fnv1a(name, *exe)) + ".c");
  if (fs::exists(path)) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    if (in && !text.str().empty()) return text.str();
  }
  std::string source = generate();
  util::write_text_atomically(path.string(), source);
  return source;
}

namespace {

// libgomp reads OMP_WAIT_POLICY and GOMP_SPINCOUNT once, when it is loaded. A module built
// with -fopenmp loads it at the first dlopen unless the process already has it: then, and
// only if the user set neither, waiting threads are told to sleep rather than spin, as in
// polyc's standalone programs (polyc.cpp, kWaitPolicyInit): on a machine where another
// process holds a core, spinning makes each fork/join cost a time slice. Once per
// process, before the first dlopen (setenv is not thread-safe: it runs under call_once).
void passive_openmp_wait_before_first_load() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (std::getenv("OMP_WAIT_POLICY") || std::getenv("GOMP_SPINCOUNT")) return;
    if (void* loaded = ::dlopen("libgomp.so.1", RTLD_LAZY | RTLD_NOLOAD)) {
      ::dlclose(loaded);  // too late: the process's libgomp has read its settings
      return;
    }
    ::setenv("OMP_WAIT_POLICY", "passive", 0);
  });
}

// The module at `so`, or nullptr when dlopen refuses it (a truncated or corrupt file).
std::shared_ptr<JitModule> open_module_impl(const fs::path& so, bool from_cache,
                                            std::shared_ptr<JitModule> (*make)(void*, const std::string&, bool)) {
  // RTLD_NODELETE: unmapping a kernel on dlclose would also unmap libgomp when it was the
  // last user, under the OpenMP worker threads still parked in it (a segfault seen in the
  // tests). Kernels are small; keeping them mapped is what TorchInductor does too.
  passive_openmp_wait_before_first_load();
  void* handle = ::dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (!handle) return nullptr;
  return make(handle, so.string(), from_cache);
}

}  // namespace

std::string JitCache::compile(const std::string& source, const std::string& suffix,
                              const std::function<bool(const std::string&)>& usable) const {
  const std::string k = key(source);
  const fs::path out = fs::path(dir_) / (k + suffix);
  if (fs::exists(out) && usable(out.string())) return out.string();
  FileLock lock(fs::path(dir_) / (k + ".lock"));
  // Another process may have finished it while this one waited for the lock; a cached
  // file that is not usable (truncated, corrupt) is compiled again.
  if (fs::exists(out)) {
    if (usable(out.string())) return out.string();
    std::error_code ec;
    fs::remove(out, ec);
  }
  static std::atomic<int> counter{0};
  const std::string unique = k + "." + std::to_string(::getpid()) + "." + std::to_string(counter++);
  const fs::path src = fs::path(dir_) / (unique + ".c"), tmp = fs::path(dir_) / (unique + ".tmp"),
                 log = fs::path(dir_) / (unique + ".log");
  {
    std::ofstream file(src, std::ios::binary);
    file << source;
    if (!file) throw std::runtime_error("jit: cannot write " + src.string());
  }
  std::string cmd = compiler_ + " " + flags_ + " -o " + shell_quote(tmp.string()) + " " + shell_quote(src.string()) + " -lm > " +
                    shell_quote(log.string()) + " 2>&1";
  int rc = std::system(cmd.c_str());
  std::error_code ec;
  if (rc != 0) {
    std::string messages = slurp(log);
    fs::remove(src, ec);
    fs::remove(tmp, ec);
    fs::remove(log, ec);
    throw std::runtime_error("jit: " + compiler_ + " failed:\n" + messages);
  }
  if (::rename(tmp.c_str(), out.c_str()) != 0)
    throw std::runtime_error("jit: cannot rename " + tmp.string() + ": " + std::strerror(errno));
  fs::rename(src, fs::path(dir_) / (k + ".c"), ec);  // kept beside the object, for reading
  fs::remove(log, ec);
  return out.string();
}

std::shared_ptr<JitModule> JitCache::load(const std::string& source) const {
  auto make = [](void* handle, const std::string& path, bool cached) {
    return std::shared_ptr<JitModule>(new JitModule(handle, path, cached));
  };
  std::shared_ptr<JitModule> cached;  // set when the cache holds a module that loads
  const std::string so = compile(source, ".so", [&](const std::string& path) {
    cached = open_module_impl(path, true, make);
    return cached != nullptr;
  });
  if (cached) return cached;
  auto built = open_module_impl(so, false, make);
  if (!built) throw std::runtime_error(std::string("jit: dlopen failed: ") + ::dlerror());
  return built;
}

std::string default_cache_dir() {
  if (const char* dir = std::getenv("PZ_KERNEL_CACHE"); dir && *dir) return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/polyzero/kernels";
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/polyzero/kernels";
  return "/tmp/polyzero-kernels";
}

}  // namespace pz::poly

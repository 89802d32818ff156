// The JIT: generated C compiled by the system compiler into a shared object, loaded with
// dlopen, and cached on disk under a key that hashes the source, the compiler and its
// flags (the way TorchInductor's CPU path works).
//
// Decisions:
// - The key is FNV-1a 64 of "compiler\0flags\0source", in hex: stable across processes and
//   runs (std::hash is not), and collisions are harmless in practice for a cache of
//   generated kernels.
// - Writes are atomic: the compiler writes `<key>.<pid>.<n>.tmp`, renamed to `<key>.so`
//   once complete, so a reader never maps a half-written file.
// - One lock file per key (`<key>.lock`, flock): two processes compiling the same kernel
//   at once compile it once; the second waits, then finds the cached object. Other keys
//   are not blocked.
// - A compile error throws with the compiler's messages; nothing is cached for that key.
// - The source is kept as `<key>.c` beside the object, for reading what was compiled.
// - A cached object that dlopen refuses (truncated, corrupt) is compiled again.
#pragma once

#include <functional>
#include <memory>
#include <string>

namespace pz::poly {

class JitModule {
 public:
  ~JitModule();
  JitModule(const JitModule&) = delete;
  JitModule& operator=(const JitModule&) = delete;

  // The address of an exported symbol (throws when it is missing).
  void* symbol(const std::string& name) const;
  template <class Fn>
  Fn* function(const std::string& name) const {
    return reinterpret_cast<Fn*>(symbol(name));
  }
  const std::string& path() const { return path_; }
  bool from_cache() const { return from_cache_; }  // false when this call ran the compiler

 private:
  friend class JitCache;
  JitModule(void* handle, std::string path, bool from_cache)
      : handle_(handle), path_(std::move(path)), from_cache_(from_cache) {}
  void* handle_;
  std::string path_;
  bool from_cache_;
};

// Where compiled kernels are cached when a client names no directory: $PZ_KERNEL_CACHE,
// else $XDG_CACHE_HOME/polyzero/kernels, else ~/.cache/polyzero/kernels, else
// /tmp/polyzero-kernels. Shared by every client of the JIT (nn's backend, recsys).
std::string default_cache_dir();

class JitCache {
 public:
  // `dir` is created when missing. The default compiler and flags suit polyc's output.
  explicit JitCache(std::string dir, std::string compiler = "gcc",
                    std::string flags = "-O3 -march=native -fopenmp -fPIC -shared");

  std::string key(const std::string& source) const;
  // Compiles (or finds in the cache) and loads `source`.
  std::shared_ptr<JitModule> load(const std::string& source) const;

  // The path of `source` compiled with this cache's compiler and flags, as `<key><suffix>`
  // (a shared object, or an executable when the flags make one): found in the cache when
  // `usable` accepts the file there, else compiled (under the key's lock, written
  // atomically). Throws with the compiler's messages when it fails.
  std::string compile(const std::string& source, const std::string& suffix,
                      const std::function<bool(const std::string&)>& usable = [](const std::string&) { return true; }) const;

  // The C source `generate` returns, kept in the directory under a key made of `name` and a
  // hash of the bytes of the file polyzero's code was loaded from (the executable, or the
  // Python module inside python3): a client whose source takes polyc seconds to generate
  // (the poly learner's kernels) asks again and reads the file, and a rebuilt program, whose
  // generators and polyc may emit other code, generates anew. Where that file cannot be
  // read, every call generates.
  std::string generated_source(const std::string& name, const std::function<std::string()>& generate) const;

  const std::string& dir() const { return dir_; }

 private:
  std::string dir_, compiler_, flags_;
};

}  // namespace pz::poly

// The correctness matrix of polyc on PolyBench/C 4.2.1 (the copy beside this file, under its
// license): every kernel through `polyzero polyc IN.c -o OUT.c <option set>` for each
// documented option set, with the element type as `double`, `float` and a typedef, compiled
// with gcc -O3 -march=native -fopenmp and run on 1 and on 2 threads (one binary), must dump
// (POLYBENCH_DUMP_ARRAYS, PolyBench's own format) the values of the unmodified program
// compiled the same way, within a relative tolerance of the element type.
//
// - The element type is spelled three ways: PolyBench's DATA_TYPE macro as written (polyc
//   does not read the header that defines it), a keyword after the preprocessor (--cpp, as
//   `bench polyc --suite polybench` runs it), and a typedef of the file (`typedef DATA_TYPE
//   pz_real;`, every later DATA_TYPE spelled pz_real). Each is compiled as double or float.
// - Option sets go through the command's own parser in PolyBenchMatrix.OptionSetsAreTheCommands
//   (the real binary writes the same file); the matrix runs polyc in process.
// - MINI: every kernel x every option set x three types. SMALL: every kernel with the option
//   set that forks at any size. Contraction sizes: the kernels whose products polyc packs
//   (BLIS loops, matmul_packing.h) at prime extents above the packing threshold, with and
//   without fusion, register blocks and packing. --tune: a fixed subset at MINI (each tuned
//   region compiles a dozen candidates).
// - "exact" sets (--no-reassociate): polyc's output and the original, both compiled with
//   -ffp-contract=off, must print the same dump, word for word.
// - One binary is built per distinct source and flags, so option sets that produce the same
//   code share it. A failure names kernel, dataset, options, type and threads, and shows the
//   first differing values. Each test prints its part of the matrix (polyhedral/README.md).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bench/polyc_bench.h"
#include "polyhedral/analysis/cache_info.h"
#include "polyhedral/frontend/preprocess.h"
#include "polyhedral/polyc.h"
#include "polyhedral/runtime/shell.h"
#include "tests/polyhedral/compile_run.h"

namespace pz::poly {
namespace {

namespace fs = std::filesystem;
using test_support::slurp;
using test_support::Workdir;

const fs::path kSuite = PZ_POLYBENCH_DIR;

// A row of the command line after `polyzero polyc IN.c -o OUT.c`.
struct OptionSet {
  std::string name;
  std::vector<std::string> args;
  bool exact() const { return std::find(args.begin(), args.end(), "--no-reassociate") != args.end(); }
  std::string text() const {
    std::string t;
    for (const auto& a : args) t += (t.empty() ? "" : " ") + a;
    return t.empty() ? "(defaults)" : t;
  }
};

// Every option the command documents for C files appears in some set, on and off; forks are
// forced at small sizes (--min-parallel-work 0) in some sets so that 2 threads run them.
const std::vector<OptionSet>& option_sets() {
  static const std::vector<OptionSet> sets = {
      {"command", {"--tile", "auto", "--parallel", "--vectorize"}},
      {"forked", {"--tile", "8,8,8", "--parallel", "--vectorize", "--min-parallel-work", "0", "--register-block"}},
      {"two-level", {"--tile", "16,16,16/4,4,4", "--vectorize", "--no-matmul-fusion", "--fusion", "max", "--unroll-jam", "2"}},
      {"l2-tiles", {"--tile", "auto1", "--parallel", "--min-parallel-work", "0", "--no-matmul-packing", "--unroll-jam", "0"}},
      {"exact", {"--tile", "auto", "--parallel", "--vectorize", "--min-parallel-work", "0", "--no-reassociate"}},
      // PolyBench runs every kernel at the sizes its arrays are declared with, so the sets
      // above run the version for those sizes; this one runs the command's generic code.
      {"generic", {"--tile", "auto", "--parallel", "--vectorize", "--no-size-versions"}},
  };
  return sets;
}

const OptionSet& option_set(const std::string& name) {
  for (const auto& s : option_sets())
    if (s.name == name) return s;
  throw std::invalid_argument("no option set " + name);
}

std::vector<long> tile_sizes(const std::string& text) {
  std::vector<long> sizes;
  std::istringstream in(text);
  for (std::string part; std::getline(in, part, ',');) sizes.push_back(std::stol(part));
  return sizes;
}

// PolycOptions as apps/polyc_command.cpp sets them from these arguments (checked against the
// binary by OptionSetsAreTheCommands). --tune-sizes takes NAME=VALUE items.
PolycOptions options_of(const std::vector<std::string>& args) {
  PolycOptions o;
  o.budget.memory_mib = 1024;
  o.data_movement = false;
  o.tile.mode = TileOptions::Mode::kAuto;
  o.matmul.enabled = true;  // the command packs unless --no-matmul-packing
  o.matmul.fuse_neighbours = true;
  o.unroll_jam = 4;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> const std::string& {
      if (i + 1 >= args.size()) throw std::invalid_argument(a + " needs a value");
      return args[++i];
    };
    if (a == "--tile") {
      const std::string t = value();
      o.tile = TileOptions{};
      if (t == "auto" || t == "auto1") {
        o.tile.mode = TileOptions::Mode::kAuto;
        o.tile.l1_tiles = t == "auto";
      } else if (t == "off") {
        o.tile.mode = TileOptions::Mode::kOff;
      } else {
        o.tile.mode = TileOptions::Mode::kFixed;
        const size_t slash = t.find('/');
        o.tile.sizes = tile_sizes(t.substr(0, slash));
        if (slash != std::string::npos) o.tile.inner_sizes = tile_sizes(t.substr(slash + 1));
      }
    } else if (a == "--parallel") {
      o.parallel = true;
    } else if (a == "--vectorize") {
      o.vectorize = true;
    } else if (a == "--register-block") {
      o.register_block.enabled = true;
    } else if (a == "--no-matmul-packing") {
      o.matmul.enabled = false;
    } else if (a == "--no-matmul-fusion") {
      o.matmul.fuse_neighbours = false;
    } else if (a == "--no-reassociate") {
      o.reassociate = false;
    } else if (a == "--no-isl") {
      o.schedule.use_isl = false;
    } else if (a == "--no-size-versions") {
      o.size_versions = false;
    } else if (a == "--fusion") {
      o.schedule.fusion = value() == "max" ? ScheduleOptions::Fusion::kMax : ScheduleOptions::Fusion::kMin;
    } else if (a == "--unroll-jam") {
      o.unroll_jam = std::stoi(value());
    } else if (a == "--min-parallel-work") {
      o.min_parallel_work = std::stoll(value());
    } else if (a == "--tune") {
      o.tune.enabled = true;
    } else if (a == "--tune-seconds") {
      o.tune.seconds = std::stod(value());
    } else if (a == "--tune-threads") {
      o.tune.threads = std::stoi(value());
    } else if (a == "--tune-sizes") {
      std::istringstream in(value());
      for (std::string item; std::getline(in, item, ',');) {
        const size_t eq = item.find('=');
        o.tune.sizes[item.substr(0, eq)] = std::stoll(item.substr(eq + 1));
      }
    } else {
      throw std::invalid_argument("options_of: " + a + " is not mapped");
    }
  }
  o.tile.cache = CacheInfo::detect();
  return o;
}

// How the program names its element type, and what it is.
struct ElementType {
  enum class Spelling { kMacro, kKeyword, kTypedef };
  std::string name;  // in the matrix
  Spelling spelling;
  bool is_float;
  // Reordered sums of the dataset's values agree to this fraction in the element type.
  double relative() const { return is_float ? 1e-4 : 1e-9; }
  std::string flags() const { return is_float ? " -DDATA_TYPE_IS_FLOAT" : ""; }
};

const ElementType kMacroFloat{"float (DATA_TYPE)", ElementType::Spelling::kMacro, true};
const ElementType kMacroDouble{"double (DATA_TYPE)", ElementType::Spelling::kMacro, false};
const ElementType kKeywordDouble{"double (--cpp)", ElementType::Spelling::kKeyword, false};
const ElementType kKeywordFloat{"float (--cpp)", ElementType::Spelling::kKeyword, true};
const ElementType kTypedefDouble{"double (typedef)", ElementType::Spelling::kTypedef, false};

// The kernel file with its element type a typedef: `typedef DATA_TYPE pz_real;` after the
// kernel's header, and DATA_TYPE spelled pz_real after it.
std::string with_typedef(const std::string& source, const std::string& header) {
  const std::string include = "#include \"" + header + "\"";
  const size_t at = source.find(include);
  if (at == std::string::npos) throw std::runtime_error("no " + include);
  const size_t end = source.find('\n', at) + 1;
  static const std::regex word("\\bDATA_TYPE\\b");
  return source.substr(0, end) + "typedef DATA_TYPE pz_real;\n" + std::regex_replace(source.substr(end), word, "pz_real");
}

// One kernel's dataset: PolyBench's name, or sizes given by their macros.
struct Dataset {
  std::string name;                   // MINI, SMALL, or a label for `sizes`
  std::map<std::string, int> sizes;   // -DNAME=VALUE (with a dataset macro beside them)
  std::string defines() const {
    std::string d = " -D" + (sizes.empty() ? name : std::string("MINI")) + "_DATASET";
    for (const auto& [n, v] : sizes) d += " -D" + n + "=" + std::to_string(v);
    return d;
  }
};


// One cell: a kernel at a dataset through an option set, for one element type.
struct Cell {
  std::string kernel;  // relative to the suite
  Dataset dataset;
  OptionSet options;
  ElementType type;
  std::string polyc_source;  // polyc's output
  std::string polyc_error;   // polyc threw
  std::string reference_key, polyc_key;
  std::vector<int> threads;           // of polyc's binary
  std::vector<std::string> failures;  // empty: passed at every thread count
  std::string note;                   // why a differing dump was accepted
};

struct Build {
  std::string source, flags;
  std::vector<int> threads;
  fs::path exe;
  bool done = false;
  std::vector<std::string> dumps;  // per thread count
  std::string error;
};

std::string stem(const std::string& kernel) { return fs::path(kernel).stem().string(); }

// gcc -O3 -march=native -fopenmp (or `optimisation`) with PolyBench's flags for the cell.
std::string compile_flags(const Cell& c, bool exact, const std::string& optimisation = "-O3 -march=native") {
  const fs::path dir = (kSuite / c.kernel).parent_path();
  return optimisation + " -fopenmp -DPZ_POLYC_FIXED_TEAM -DPOLYBENCH_DUMP_ARRAYS" + c.dataset.defines() + c.type.flags() +
         (exact ? " -ffp-contract=off" : "") + " -I" + shell_quote((kSuite / "utilities").string()) + " -I" +
         shell_quote(dir.string());
}

// Runs the jobs on two threads (the test machine's cores; each job mostly waits for gcc).
void run_all(const std::vector<std::function<void()>>& jobs) {
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t k; (k = next++) < jobs.size();) jobs[k]();
  };
  std::thread helper(worker);
  worker();
  helper.join();
}

void build_and_run(Build& b, const fs::path& polybench_o) {
  const fs::path src = b.exe.string() + ".c", log = b.exe.string() + ".log";
  std::ofstream(src) << b.source;
  const std::string compile = "gcc " + b.flags + " -o " + shell_quote(b.exe.string()) + " " + shell_quote(src.string()) + " " +
                              shell_quote(polybench_o.string()) + " -lm > " + shell_quote(log.string()) + " 2>&1";
  b.done = true;
  if (std::system(compile.c_str()) != 0) {
    b.error = "gcc failed: " + slurp(log).substr(0, 1500);
    return;
  }
  for (int t : b.threads) {
    const fs::path dump = b.exe.string() + "." + std::to_string(t) + ".dump", out = b.exe.string() + ".out";
    const std::string run = "OMP_NUM_THREADS=" + std::to_string(t) + " OMP_WAIT_POLICY=PASSIVE timeout 120 " +
                            shell_quote(b.exe.string()) + " > " + shell_quote(out.string()) + " 2> " + shell_quote(dump.string());
    if (std::system(run.c_str()) != 0) {
      b.error = "the program failed on " + std::to_string(t) + " thread(s)";
      return;
    }
    b.dumps.push_back(slurp(dump));
  }
  std::error_code ec;
  fs::remove(b.exe, ec);  // the dumps are kept in memory; SMALL binaries add up
}

std::string original_source(const Cell& c) {
  const std::string text = slurp(kSuite / c.kernel);
  return c.type.spelling == ElementType::Spelling::kTypedef ? with_typedef(text, stem(c.kernel) + ".h") : text;
}

// polyc as the command runs it on the file (after the preprocessor for --cpp).
void transform(const std::vector<Cell*>& cells) {
  const Cell& first = *cells.front();
  std::string out, error;
  try {
    const fs::path path = kSuite / first.kernel;
    const std::string text = original_source(first);
    const PolycOptions o = options_of(first.options.args);
    PolycResult r;
    if (first.type.spelling == ElementType::Spelling::kKeyword) {
      PreprocessOptions cpp;
      cpp.compiler = "gcc";
      std::istringstream defines(first.dataset.defines() + first.type.flags());
      for (std::string d; defines >> d;) cpp.flags.push_back(d);
      cpp.flags.insert(cpp.flags.end(), {"-DPOLYBENCH_DUMP_ARRAYS", "-I" + (kSuite / "utilities").string(),
                                         "-I" + path.parent_path().string()});
      r = polyc(text, preprocess_c_file(path.string(), cpp), o);
    } else {
      r = polyc(text, o);
    }
    out = r.output;
  } catch (const std::exception& e) {
    error = e.what();
  }
  for (Cell* c : cells) {
    c->polyc_source = out;
    c->polyc_error = error;
  }
}

std::string polyc_key(const Cell& c) {
  std::string key = c.kernel + "|" + c.options.text() + "|" + std::to_string(static_cast<int>(c.type.spelling));
  if (c.type.spelling == ElementType::Spelling::kKeyword) key += "|" + c.dataset.defines() + c.type.flags();
  return key;
}

std::string where(const Cell& c) {
  return stem(c.kernel) + " " + c.dataset.name + " [" + c.options.text() + "] " + c.type.name;
}

// The matrix of its cells: polyc once per distinct input, one build per distinct source and
// flags, polyc's binaries run on 1 and 2 threads, every dump compared with the original's.
// Where a dump differs and the original's own dump changes with the compiler's floating-point
// contractions (-O0 against -O3 -march=native: the kernel is ill-conditioned at this size), the
// cell is decided by the exact check instead: polyc with --no-reassociate and the original,
// both -ffp-contract=off, word for word. Prints the table; every failure fails the test.
class Matrix {
 public:
  explicit Matrix(const std::string& name) : name_(name), work_(name) {
    polybench_o_ = work_.path() / "polybench.o";
    const std::string cmd = "gcc -O2 -DPOLYBENCH_DUMP_ARRAYS -I" + shell_quote((kSuite / "utilities").string()) + " -c -o " +
                            shell_quote(polybench_o_.string()) + " " +
                            shell_quote((kSuite / "utilities" / "polybench.c").string());
    EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  }

  void add(const std::string& kernel, const Dataset& ds, const OptionSet& options, const ElementType& type) {
    Cell c;
    c.kernel = kernel;
    c.dataset = ds;
    c.options = options;
    c.type = type;
    cells_.push_back(std::move(c));
  }

  void run() {
    std::vector<Cell*> all;
    for (Cell& c : cells_) all.push_back(&c);
    evaluate(all);
    // Differing dumps: is the original itself sensitive to rounding here?
    std::vector<Cell*> differing;
    std::map<std::string, std::string> unoptimised;  // (kernel, dataset, type) -> build key
    for (Cell& c : cells_) {
      if (c.failures.empty() || !c.polyc_error.empty() || c.options.exact() || !builds_.at(c.reference_key).error.empty()) continue;
      differing.push_back(&c);
      unoptimised[conditioning_key(c)] = add_build(original_source(c), compile_flags(c, false, "-O0"), {1}, stem(c.kernel));
    }
    build_pending();
    std::vector<Cell> exact;
    for (Cell* c : differing) {
      const Build& o0 = builds_.at(unoptimised.at(conditioning_key(*c)));
      const Build& o3 = builds_.at(c->reference_key);
      if (!o0.error.empty() || o0.dumps.empty()) continue;
      const bench::DumpComparison d = bench::compare_polybench_dump_text(o3.dumps[0], o0.dumps[0], c->type.relative());
      if (d.agree()) continue;  // well-conditioned: the failure stands
      Cell twin = *c;
      twin.options.name += "+exact";
      twin.options.args.push_back("--no-reassociate");
      twin.failures.clear();
      twin.note = "ill-conditioned (the original at -O0 against -O3: " + d.describe() + ")";
      exact.push_back(std::move(twin));
    }
    std::vector<Cell*> twins;
    for (Cell& t : exact) twins.push_back(&t);
    evaluate(twins);
    for (Cell* c : differing)
      for (const Cell& t : exact)
        if (t.kernel == c->kernel && t.dataset.name == c->dataset.name && t.type.name == c->type.name &&
            t.options.name == c->options.name + "+exact") {
          if (t.failures.empty()) {
            c->note = t.note + "; passed word for word with --no-reassociate, both -ffp-contract=off";
            c->failures.clear();
          } else {
            for (const auto& f : t.failures) c->failures.push_back("and " + f);
          }
        }
    print();
    for (const Cell& c : cells_)
      for (const auto& f : c.failures) ADD_FAILURE() << f;
  }

  const std::vector<Cell>& cells() const { return cells_; }

 private:
  static std::string conditioning_key(const Cell& c) { return c.kernel + "|" + c.dataset.defines() + "|" + c.type.name; }

  void evaluate(const std::vector<Cell*>& cells) {
    std::map<std::string, std::vector<Cell*>> inputs;
    for (Cell* c : cells) inputs[polyc_key(*c)].push_back(c);
    std::vector<std::function<void()>> jobs;
    for (auto& [key, group] : inputs) jobs.push_back([&group = group] { transform(group); });
    run_all(jobs);
    for (Cell* c : cells) {
      const bool exact = c->options.exact();
      const std::string flags = compile_flags(*c, exact);
      // The original: the kernel file as written (its DATA_TYPE); the typedef variant means the same program.
      Cell original = *c;
      original.type.spelling = ElementType::Spelling::kMacro;
      c->reference_key = add_build(original_source(original), flags, {1}, stem(c->kernel));
      c->threads = {1, 2};
      if (c->polyc_error.empty()) c->polyc_key = add_build(c->polyc_source, flags, c->threads, stem(c->kernel));
    }
    build_pending();
    for (Cell* c : cells) compare(*c);
  }

  std::string add_build(const std::string& source, const std::string& flags, const std::vector<int>& threads,
                        const std::string& name) {
    const std::string key = flags + "\n" + source;
    auto [it, fresh] = builds_.try_emplace(key);
    if (fresh) {
      it->second.source = source;
      it->second.flags = flags;
      it->second.threads = threads;
      it->second.exe = work_.path() / (name + "_" + std::to_string(builds_.size()));
    } else if (threads.size() > it->second.threads.size()) {
      EXPECT_FALSE(it->second.done) << "a build is asked for more threads after it ran";
      it->second.threads = threads;
    }
    return key;
  }

  void build_pending() {
    std::vector<std::function<void()>> jobs;
    for (auto& [key, b] : builds_)
      if (!b.done) jobs.push_back([&b = b, this] { build_and_run(b, polybench_o_); });
    run_all(jobs);
  }

  void compare(Cell& c) {
    c.failures.clear();
    if (!c.polyc_error.empty()) {
      c.failures.push_back(where(c) + ": polyc: " + c.polyc_error);
      return;
    }
    const Build& want = builds_.at(c.reference_key);
    const Build& got = builds_.at(c.polyc_key);
    if (!want.error.empty() || want.dumps.empty()) {
      c.failures.push_back(where(c) + ": the original: " + want.error);
      return;
    }
    if (!got.error.empty()) {
      c.failures.push_back(where(c) + ": polyc's output: " + got.error);
      return;
    }
    for (size_t k = 0; k < c.threads.size(); ++k) {
      const bool exact = c.options.exact();
      const bench::DumpComparison d =
          bench::compare_polybench_dump_text(want.dumps[0], got.dumps.at(k), exact ? 0.0 : c.type.relative(), exact ? 0.0 : 0.0100001);
      if (!d.agree()) c.failures.push_back(where(c) + ", " + std::to_string(c.threads[k]) + " thread(s): " + d.describe());
    }
  }

  // Rows: kernel and dataset; columns: option sets; an entry: the checks passed of those run
  // (element types x 1 and 2 threads), `*` where an ill-conditioned dump passed the exact check.
  void print() const {
    std::vector<std::string> sets, rows, types;
    std::map<std::string, std::map<std::string, std::string>> entry;
    std::map<std::string, std::map<std::string, std::pair<int, int>>> count;
    for (const Cell& c : cells_) {
      if (std::find(sets.begin(), sets.end(), c.options.name) == sets.end()) sets.push_back(c.options.name);
      if (std::find(types.begin(), types.end(), c.type.name) == types.end()) types.push_back(c.type.name);
      const std::string row = stem(c.kernel) + " " + c.dataset.name;
      if (!count.count(row)) rows.push_back(row);
      auto& n = count[row][c.options.name];
      n.second += static_cast<int>(c.threads.size());
      if (c.failures.empty()) n.first += static_cast<int>(c.threads.size());
      if (c.failures.empty() && !c.note.empty()) entry[row][c.options.name] = "*";
    }
    std::ostringstream out;
    out << "PolyBench matrix " << name_ << ": checks passed / run (element types x 1 and 2 threads), " << builds_.size()
        << " builds\n| kernel dataset |";
    for (const auto& s : sets) out << " " << s << " |";
    out << "\n|---|";
    for (size_t i = 0; i < sets.size(); ++i) out << "---|";
    out << "\n";
    for (const auto& row : rows) {
      out << "| " << row << " |";
      for (const auto& s : sets) {
        auto it = count.at(row).find(s);
        if (it == count.at(row).end()) {
          out << " |";
          continue;
        }
        const bool all = it->second.first == it->second.second;
        out << " " << (all ? "pass " : "FAIL ") << it->second.first << "/" << it->second.second
            << (entry.count(row) && entry.at(row).count(s) ? "*" : "") << " |";
      }
      out << "\n";
    }
    for (const auto& s : sets)
      for (const Cell& c : cells_)
        if (c.options.name == s) {
          out << "  " << s << ": " << c.options.text() << "\n";
          break;
        }
    out << "  element types:";
    for (const auto& t : types) out << " " << t << ";";
    out << "\n";
    for (const Cell& c : cells_)
      if (c.failures.empty() && !c.note.empty()) out << "  * " << where(c) << ": " << c.note << "\n";
    std::fputs(out.str().c_str(), stdout);
    std::fflush(stdout);
  }

  std::string name_;
  Workdir work_;
  fs::path polybench_o_;
  std::vector<Cell> cells_;
  std::map<std::string, Build> builds_;
};

std::vector<std::string> all_kernels() {
  std::vector<std::string> k = bench::polybench_kernels(kSuite.string());
  EXPECT_EQ(k.size(), 30u);
  return k;
}

// The element types of a cell: double and float, alternating over the option sets between
// {double through DATA_TYPE, float after the preprocessor} and {float through DATA_TYPE,
// double through a typedef}: two polyc outputs per cell, every spelling in every other set.
std::vector<ElementType> types_for(size_t option_set_index) {
  if (option_set_index % 2 == 0) return {kMacroDouble, kKeywordFloat};
  return {kMacroFloat, kTypedefDouble};
}

// The option sets mean what they say: `polyzero polyc IN.c -o OUT.c <set>` (the binary, its
// own parser) writes what the matrix's options produce, as written and with --cpp.
TEST(PolyBenchMatrixCommand, OptionSetsAreTheCommands) {
  Workdir dir("pb_matrix_command");
  const std::string kernel = "linear-algebra/blas/syrk/syrk.c";
  const fs::path path = kSuite / kernel;
  for (size_t s = 0; s < option_sets().size(); ++s) {
    const OptionSet& set = option_sets()[s];
    for (const ElementType& type : {kMacroDouble, kKeywordFloat}) {
      Cell c;
      c.kernel = kernel;
      c.dataset = {"MINI", {}};
      c.options = set;
      c.type = type;
      transform({&c});
      ASSERT_EQ(c.polyc_error, "") << where(c);
      const fs::path out = dir.path() / ("out_" + std::to_string(s) + ".c");
      std::string cmd = std::string(PZ_POLYZERO) + " polyc " + shell_quote(path.string()) + " -o " + shell_quote(out.string());
      for (const auto& a : set.args) cmd += " " + shell_quote(a);
      if (type.spelling == ElementType::Spelling::kKeyword)
        cmd += " -D MINI_DATASET -D DATA_TYPE_IS_FLOAT -D POLYBENCH_DUMP_ARRAYS -I " + shell_quote((kSuite / "utilities").string()) +
               " -I " + shell_quote(path.parent_path().string());
      cmd = "CC=gcc " + cmd + " > " + shell_quote((dir.path() / "report.txt").string()) + " 2>&1";
      ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd << "\n" << slurp(dir.path() / "report.txt");
      EXPECT_EQ(slurp(out), c.polyc_source) << where(c);
    }
  }
}

// MINI: three kernels of the suite (in benchmark_list's order) through every option set.
class PolyBenchMatrix : public ::testing::TestWithParam<int> {};

TEST_P(PolyBenchMatrix, EveryOptionSetAtMini) {
  const std::vector<std::string> kernels = all_kernels();
  Matrix m("pb_matrix_mini_" + std::to_string(GetParam()));
  const size_t first = static_cast<size_t>(GetParam()) * 3;
  for (size_t k = first; k < first + 3; ++k)
    for (size_t s = 0; s < option_sets().size(); ++s)
      for (const ElementType& t : types_for(s)) m.add(kernels.at(k), {"MINI", {}}, option_sets()[s], t);
  m.run();
}

INSTANTIATE_TEST_SUITE_P(KernelsByThree, PolyBenchMatrix, ::testing::Range(0, 10));

// SMALL: every kernel (half of the suite per instance) through the set that forks at any
// size, in double and float through DATA_TYPE (one polyc output).
class PolyBenchMatrixSmall : public ::testing::TestWithParam<int> {};

TEST_P(PolyBenchMatrixSmall, ForkedAtSmall) {
  const std::vector<std::string> kernels = all_kernels();
  Matrix m("pb_matrix_small_" + std::to_string(GetParam()));
  for (size_t k = static_cast<size_t>(GetParam()); k < kernels.size(); k += 2)
    for (const ElementType& t : {kMacroDouble, kMacroFloat}) m.add(kernels[k], {"SMALL", {}}, option_set("forked"), t);
  m.run();
}

INSTANTIATE_TEST_SUITE_P(HalfTheSuite, PolyBenchMatrixSmall, ::testing::Range(0, 2));

// The kernels whose products polyc packs (matmul_packing.h, outer_loop.h), at prime extents
// whose products pass the packing threshold (2^21 multiply-adds): edge blocks on every side,
// and the packed code chosen at run time, fused with its neighbours or not, with register
// blocks; --no-matmul-packing beside them as the unpacked form.
class PolyBenchMatrixPacked : public ::testing::TestWithParam<int> {};

TEST_P(PolyBenchMatrixPacked, ContractionsAtPrimeSizes) {
  const std::vector<std::pair<std::string, std::map<std::string, int>>> kernels = {
      {"linear-algebra/blas/gemm/gemm.c", {{"NI", 131}, {"NJ", 127}, {"NK", 137}}},
      {"linear-algebra/kernels/2mm/2mm.c", {{"NI", 131}, {"NJ", 127}, {"NK", 137}, {"NL", 139}}},
      {"linear-algebra/kernels/3mm/3mm.c", {{"NI", 131}, {"NJ", 127}, {"NK", 137}, {"NL", 139}, {"NM", 149}}},
      {"linear-algebra/blas/syrk/syrk.c", {{"M", 167}, {"N", 163}}},
      {"linear-algebra/blas/syr2k/syr2k.c", {{"M", 167}, {"N", 163}}},
      {"linear-algebra/blas/symm/symm.c", {{"M", 131}, {"N", 137}}},
      {"linear-algebra/blas/trmm/trmm.c", {{"M", 131}, {"N", 137}}},
      {"linear-algebra/kernels/doitgen/doitgen.c", {{"NQ", 127}, {"NR", 3}, {"NP", 131}}},
      {"datamining/covariance/covariance.c", {{"M", 131}, {"N", 137}}},
      {"datamining/correlation/correlation.c", {{"M", 131}, {"N", 137}}},
      {"linear-algebra/solvers/gramschmidt/gramschmidt.c", {{"M", 137}, {"N", 131}}},
  };
  // Packing needs the element type by name (its vector lanes): the keyword spelling.
  Matrix m("pb_matrix_packed_" + std::to_string(GetParam()));
  for (size_t k = static_cast<size_t>(GetParam()); k < kernels.size(); k += 2) {
    const auto& [kernel, sizes] = kernels[k];
    for (const char* set : {"command", "two-level", "forked"}) m.add(kernel, {"PRIMES", sizes}, option_set(set), kKeywordDouble);
    m.add(kernel, {"PRIMES", sizes}, option_set("command"), kKeywordFloat);
  }
  m.run();
}

INSTANTIATE_TEST_SUITE_P(HalfTheKernels, PolyBenchMatrixPacked, ::testing::Range(0, 2));

// The dataset's integer macros as --tune-sizes for the file after the preprocessor, where
// PolyBench's bounds are the kernel's arguments, the macros' names in lower case.
std::string tune_sizes(const std::string& kernel, const Dataset& ds) {
  Workdir dir("pb_tune_sizes");
  const fs::path out = dir.path() / "macros.txt";
  const std::string cmd = "gcc -E -dM" + ds.defines() + " -I" + shell_quote((kSuite / "utilities").string()) + " -I" +
                          shell_quote((kSuite / kernel).parent_path().string()) + " " + shell_quote((kSuite / kernel).string()) +
                          " > " + shell_quote(out.string());
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  static const std::regex define(R"(^#define ([A-Z][A-Z0-9_]*) (\d+)$)");
  std::istringstream lines(slurp(out));
  std::string sizes;
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (!std::regex_match(line, m, define) || m[2].str().size() > 6) continue;
    std::string name = m[1];
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    sizes += (sizes.empty() ? "" : ",") + name + "=" + m[2].str();
  }
  return sizes;
}

// --tune on a fixed subset at MINI, after the preprocessor (the tuner's harness declares the
// data, so it needs the element type by name): the candidates are timed, so which one is kept
// varies; whichever it is must print the original's values.
TEST(PolyBenchMatrixTuned, TunedKernelsAtMini) {
  Workdir cache("pb_tune_cache");
  ::setenv("PZ_KERNEL_CACHE", cache.path().c_str(), 1);
  Matrix m("pb_matrix_tuned");
  const Dataset mini{"MINI", {}};
  for (const char* kernel : {"linear-algebra/blas/gemm/gemm.c", "stencils/jacobi-2d/jacobi-2d.c"}) {
    OptionSet tuned{"tune", {"--tune", "--tune-seconds", "0.1", "--tune-sizes", tune_sizes(kernel, mini), "--parallel", "--vectorize"}};
    m.add(kernel, mini, tuned, kKeywordDouble);
    if (std::string(kernel).find("gemm") != std::string::npos) m.add(kernel, mini, tuned, kKeywordFloat);
  }
  m.run();
  ::unsetenv("PZ_KERNEL_CACHE");
  // The tuner timed candidates (its choices are in the cache).
  size_t tuned = 0;
  for (const auto& e : fs::directory_iterator(cache.path())) tuned += e.path().extension() == ".tune";
  EXPECT_GT(tuned, 0u);
}

}  // namespace
}  // namespace pz::poly

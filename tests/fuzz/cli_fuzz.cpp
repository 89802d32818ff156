// cli_fuzz POLYZERO SOURCE_DIR: runs seeded, mutated inputs through the polyzero command line
// (fuzz_cases.h: polyc, polyc --report-net, lr, train --print-config, player and game specs,
// analyze and gtp on standard input, serve over HTTP, and damaged models, run directories and
// tournament records) and checks the README's promise: bad input gives a clear error and
// status 2, never a crash; and the server's (http_probe.h): hostile requests are answered,
// never obeyed. The damaged-file seeds are written by the binary itself at the start
// (generated_seeds.h), in the driver's temporary directory.
//
// Each case runs in its own directory and process group with a wall-clock and memory limit
// (limited_child.h). A case fails on a signal, a timeout, an exit status other than 0 or 2,
// status 2 with nothing on stderr, or "internal error" / a sanitizer report on stderr. A
// failure prints the command, the child's stderr head and the reason, and keeps the case
// under ./cli_fuzz_failures/seed-S-case-N/ with a command.sh that reproduces it. The end
// is a summary per target; the exit status is 1 when any case failed.
//
// Environment (all optional):
//   PZ_CLI_FUZZ_SEED=S        the sequence (default 20); the same seed gives the same cases
//   PZ_CLI_FUZZ_CASES=N       how many (default 160; raising it only appends cases)
//   PZ_CLI_FUZZ_CASE=I        run only case I (to reproduce one)
//   PZ_CLI_FUZZ_TARGETS=a,b   run only the cases of these targets (polyc, report-net, lr,
//                             train-config, train-set, player, game); numbering is unchanged
//   PZ_CLI_FUZZ_JOBS=J        cases run at once (default: the CPU count, at most 4)
//   PZ_CLI_FUZZ_TIMEOUT=SEC   wall clock per case (default 20)
//   PZ_CLI_FUZZ_MEMORY_MB=MB  address-space limit per case (default 4096; 0: none, as under ASan)
//   PZ_CLI_FUZZ_FAILURES=DIR  where failures are kept (default cli_fuzz_failures)
//   PZ_CLI_FUZZ_VERBOSE=1     one line per case
//   PZ_CLI_FUZZ_LIST=1        print the cases (command, file sizes and hashes) without running them
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "tests/fuzz/case_builders.h"
#include "tests/fuzz/fuzz_cases.h"
#include "tests/fuzz/generated_seeds.h"
#include "tests/fuzz/http_probe.h"
#include "tests/fuzz/limited_child.h"

namespace fs = std::filesystem;
using namespace pz::fuzz;

namespace {

constexpr std::size_t kStderrScanBytes = 64 << 10;  // searched for "internal error" and sanitizer reports
constexpr std::size_t kStderrShownBytes = 1500;     // printed with a failure

struct Settings {
  std::string program, source_dir;
  std::uint64_t seed = 20;
  int cases = 160;
  std::optional<int> only_case;
  std::vector<std::string> only_targets;  // empty: all
  int jobs = 1;
  ChildLimits limits;
  fs::path failures_dir = "cli_fuzz_failures";
  bool verbose = false;
  bool list_only = false;
};

std::optional<long long> env_number(const char* name) {
  const char* text = std::getenv(name);
  if (!text || !*text) return std::nullopt;
  char* end = nullptr;
  const long long value = std::strtoll(text, &end, 10);
  if (*end != '\0' || value < 0) {
    std::fprintf(stderr, "cli_fuzz: %s=%s is not a non-negative integer\n", name, text);
    std::exit(2);
  }
  return value;
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items;
  for (std::size_t start = 0; start <= text.size();) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    if (comma > start) items.push_back(text.substr(start, comma - start));
    start = comma + 1;
  }
  return items;
}

Settings read_settings(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: cli_fuzz POLYZERO SOURCE_DIR (see the header of tests/fuzz/cli_fuzz.cpp)\n");
    std::exit(2);
  }
  Settings s;
  s.program = fs::absolute(argv[1]).string();
  s.source_dir = argv[2];
  s.seed = static_cast<std::uint64_t>(env_number("PZ_CLI_FUZZ_SEED").value_or(20));
  s.cases = static_cast<int>(env_number("PZ_CLI_FUZZ_CASES").value_or(160));
  if (auto only = env_number("PZ_CLI_FUZZ_CASE")) s.only_case = static_cast<int>(*only);
  const int cpus = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  s.jobs = static_cast<int>(std::max<long long>(1, env_number("PZ_CLI_FUZZ_JOBS").value_or(std::min(cpus, 4))));
  s.limits.seconds = static_cast<double>(env_number("PZ_CLI_FUZZ_TIMEOUT").value_or(20));
  s.limits.memory_bytes = static_cast<std::size_t>(env_number("PZ_CLI_FUZZ_MEMORY_MB").value_or(4096)) << 20;
  if (const char* targets = std::getenv("PZ_CLI_FUZZ_TARGETS")) s.only_targets = split_list(targets);
  for (const auto& t : s.only_targets) {
    if (std::find(target_names().begin(), target_names().end(), t) == target_names().end()) {
      std::fprintf(stderr, "cli_fuzz: PZ_CLI_FUZZ_TARGETS: unknown target '%s'\n", t.c_str());
      std::exit(2);
    }
  }
  if (const char* dir = std::getenv("PZ_CLI_FUZZ_FAILURES"); dir && *dir) s.failures_dir = dir;
  s.failures_dir = fs::absolute(s.failures_dir);
  s.verbose = env_number("PZ_CLI_FUZZ_VERBOSE").value_or(0) != 0;
  s.list_only = env_number("PZ_CLI_FUZZ_LIST").value_or(0) != 0;
  return s;
}

std::string substitute_dir(std::string arg, const std::string& dir) {
  const std::string mark = "@DIR@";
  for (auto p = arg.find(mark); p != std::string::npos; p = arg.find(mark, p + dir.size())) arg.replace(p, mark.size(), dir);
  return arg;
}

// The argument as a POSIX shell reads it back: bare, '...' or $'...' with escapes.
std::string shell_quote(const std::string& arg) {
  const auto bare = [](unsigned char c) { return std::isalnum(c) || std::string_view("@%+=:,./_-").find(c) != std::string_view::npos; };
  const auto plain = [](unsigned char c) { return c >= 0x20 && c < 0x7f && c != '\''; };
  if (!arg.empty() && std::all_of(arg.begin(), arg.end(), bare)) return arg;
  if (std::all_of(arg.begin(), arg.end(), plain)) return "'" + arg + "'";
  std::string out = "$'";
  for (const unsigned char c : arg) {
    if (c == '\'' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    }
  }
  return out + "'";
}

// The command for the console: long arguments abbreviated (command.sh has them in full).
std::string short_command(const std::vector<std::string>& argv) {
  std::string text;
  for (const auto& arg : argv) {
    std::string quoted = shell_quote(arg);
    if (quoted.size() > 160) quoted = quoted.substr(0, 120) + "...(" + std::to_string(arg.size()) + " bytes)";
    text += (text.empty() ? "" : " ") + quoted;
  }
  return text;
}

// Why the outcome breaks the contract, or "" when it keeps it.
std::string judge(const ChildOutcome& outcome, const std::string& stderr_head) {
  if (outcome.kind != ChildOutcome::Kind::kExited) return describe(outcome);
  for (const char* marker : {"ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:", "internal error"})
    if (stderr_head.find(marker) != std::string::npos) return describe(outcome) + " with \"" + marker + "\" on stderr";
  if (outcome.exit_code != 0 && outcome.exit_code != 2) return describe(outcome);
  if (outcome.exit_code == 2 && stderr_head.find_first_not_of(" \t\r\n") == std::string::npos)
    return "exit status 2 with an empty stderr";
  return "";
}

void write_file(const fs::path& path, const std::string& content) {
  fs::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary);
  out << content;
}

struct CaseResult {
  std::string target, command, failure;
  double seconds = 0, cpu_seconds = 0;
  int exit_code = -1;  // when it exited
};

class Fuzzer {
 public:
  Fuzzer(Settings settings, Corpus corpus, fs::path work_dir)
      : s_(std::move(settings)), corpus_(std::move(corpus)), work_dir_(std::move(work_dir)) {}

  int run() {
    std::vector<int> indices;
    if (s_.only_case) indices.push_back(*s_.only_case);
    else
      for (int i = 0; i < s_.cases; ++i) indices.push_back(i);
    if (!s_.only_targets.empty()) std::erase_if(indices, [&](int i) { return !wanted(make_case(corpus_, s_.seed, i).target); });
    if (s_.list_only) {
      for (int i : indices) list_case(i);
      return 0;
    }
    results_.assign(indices.size(), {});
    std::printf("cli_fuzz: %zu cases, seed %llu, %d at once, %.0f s and %zu MiB each, against %s\n", indices.size(),
                static_cast<unsigned long long>(s_.seed), s_.jobs, s_.limits.seconds, s_.limits.memory_bytes >> 20,
                s_.program.c_str());
    std::fflush(stdout);
    const auto start = std::chrono::steady_clock::now();
    std::atomic<std::size_t> next{0};
    std::vector<std::thread> workers;
    for (int j = 0; j < s_.jobs; ++j)
      workers.emplace_back([&] {
        for (std::size_t k; (k = next++) < indices.size();) {
          results_[k] = run_case(indices[k]);
          if (const std::size_t done = ++done_; done % 50 == 0) log("... %zu of %zu cases run\n", done, indices.size());
        }
      });
    for (auto& w : workers) w.join();
    return summarize(indices, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }

 private:
  bool wanted(const std::string& target) const {
    return std::find(s_.only_targets.begin(), s_.only_targets.end(), target) != s_.only_targets.end();
  }

  void list_case(int index) const {
    const FuzzCase c = make_case(corpus_, s_.seed, index);
    std::vector<std::string> argv{"polyzero"};
    argv.insert(argv.end(), c.args.begin(), c.args.end());
    std::printf("case %d %s: %s\n", index, c.target.c_str(), short_command(argv).c_str());
    for (const auto& f : c.files)
      std::printf("  %s: %zu bytes, hash %016llx\n", f.name.c_str(), f.content.size(),
                  static_cast<unsigned long long>(std::hash<std::string>{}(f.content)));
  }

  CaseResult run_case(int index) {
    const FuzzCase c = make_case(corpus_, s_.seed, index);
    const fs::path dir = work_dir_ / ("case-" + std::to_string(index));
    const std::string stem = (work_dir_ / ("case-" + std::to_string(index))).string();
    fs::create_directories(dir);
    for (const auto& f : c.files) write_file(dir / f.name, f.content);
    ChildRun run;
    run.argv.push_back(s_.program);
    for (const auto& a : c.args) run.argv.push_back(substitute_dir(a, dir.string()));
    run.working_dir = dir.string();
    run.stdout_path = stem + ".out";
    run.stderr_path = stem + ".err";
    if (!c.stdin_text.empty()) {
      run.stdin_path = stem + ".in";
      write_file(run.stdin_path, substitute_dir(c.stdin_text, dir.string()));
    }
    ChildLimits limits = s_.limits;
    limits.seconds *= c.timeout_scale;
    std::string server_failure;
    ChildOutcome outcome;
    if (c.target == "http") {
      HttpCaseOutcome served = run_http_case(run, limits, c.http, dir.string());
      outcome = served.outcome;
      server_failure = served.failure;
    } else {
      outcome = run_limited(run, limits);
    }
    const std::string stderr_head = read_head(run.stderr_path, kStderrScanBytes);

    std::string failure = judge(outcome, stderr_head);
    if (failure.empty()) failure = server_failure;
    if (failure.empty() && fs::exists(dir / kPwnedFile)) failure = std::string("the case created ") + kPwnedFile + ": a seat ran a command or opened a log";
    CaseResult r{c.target, short_command(run.argv), failure, outcome.seconds, outcome.cpu_seconds,
                 outcome.kind == ChildOutcome::Kind::kExited ? outcome.exit_code : -1};
    if (!r.failure.empty()) report_failure(index, c, r, stderr_head, read_head(run.stdout_path, kStderrShownBytes));
    else if (s_.verbose) log("case %d %-12s %5.2f s %s: %s\n", index, c.target.c_str(), r.seconds, describe(outcome).c_str(), r.command.c_str());
    std::error_code ec;
    fs::remove_all(dir, ec);
    for (const char* extension : {".out", ".err", ".in"}) fs::remove(stem + extension, ec);
    return r;
  }

  // Keeps the case where it reproduces: its files and a command.sh naming them.
  fs::path save_failure(int index, const FuzzCase& c, const CaseResult& r, const std::string& stderr_head,
                        const std::string& stdout_head) {
    const fs::path dir = s_.failures_dir / ("seed-" + std::to_string(s_.seed) + "-case-" + std::to_string(index));
    std::error_code ec;
    fs::remove_all(dir, ec);
    fs::create_directories(dir);
    for (const auto& f : c.files) write_file(dir / f.name, f.content);
    std::string command = shell_quote(s_.program);
    for (const auto& a : c.args) command += " " + shell_quote(substitute_dir(a, dir.string()));
    std::string input = "/dev/null";
    if (!c.stdin_text.empty()) {
      write_file(dir / "stdin.txt", substitute_dir(c.stdin_text, dir.string()));
      input = "stdin.txt";
    }
    if (c.target == "http") {
      // The server needs the driver to talk to it: PZ_CLI_FUZZ_CASE=index reruns the case.
      std::string requests;
      for (const auto& request : c.http.requests) requests += substitute_dir(request, dir.string()) + "\n----\n";
      write_file(dir / "http-requests.txt", requests + "then " + std::to_string(c.http.event_streams) + " event streams\n");
    }
    write_file(dir / "command.sh", "#!/bin/sh\n# cli_fuzz seed " + std::to_string(s_.seed) + " case " + std::to_string(index) +
                                       " (" + c.target + "): " + r.failure + "\ncd " + shell_quote(dir.string()) +
                                       " || exit 1\nexec " + command + " <" + input + "\n");
    write_file(dir / "stderr.txt", stderr_head);
    write_file(dir / "stdout.txt", stdout_head);
    return dir;
  }

  void report_failure(int index, const FuzzCase& c, const CaseResult& r, const std::string& stderr_head,
                      const std::string& stdout_head) {
    const fs::path saved = save_failure(index, c, r, stderr_head, stdout_head);
    std::string input_note;
    for (const auto& f : c.files) {
      if (f.content.size() <= 300 && std::all_of(f.content.begin(), f.content.end(), [](unsigned char ch) { return ch == '\n' || (ch >= 0x20 && ch < 0x7f); }))
        input_note += "  " + f.name + ":\n" + f.content + (f.content.empty() || f.content.back() != '\n' ? "\n" : "");
      else
        input_note += "  " + f.name + ": " + std::to_string(f.content.size()) + " bytes, in " + (saved / f.name).string() + "\n";
    }
    log("FAIL case %d (%s, seed %llu, %.2f s): %s\n  command: %s\n%s  reproduce: sh %s\n  stderr head:\n%s\n", index,
        c.target.c_str(), static_cast<unsigned long long>(s_.seed), r.seconds, r.failure.c_str(), r.command.c_str(),
        input_note.c_str(), (saved / "command.sh").string().c_str(), stderr_head.substr(0, kStderrShownBytes).c_str());
  }

  template <typename... Args>
  void log(const char* format, Args... args) {
    std::lock_guard lock(log_mutex_);
    std::printf(format, args...);
    std::fflush(stdout);
  }

  int summarize(const std::vector<int>& indices, double wall_seconds) const {
    if (results_.empty()) return 0;
    struct Tally {
      int cases = 0, failed = 0, status0 = 0;
      double seconds = 0, cpu_seconds = 0;
    };
    std::map<std::string, Tally> by_target;
    int failed = 0;
    double cpu_seconds = 0;
    std::size_t slowest = 0;
    for (std::size_t k = 0; k < results_.size(); ++k) {
      const CaseResult& r = results_[k];
      Tally& t = by_target[r.target];
      ++t.cases;
      t.seconds += r.seconds;
      t.cpu_seconds += r.cpu_seconds;
      cpu_seconds += r.cpu_seconds;
      if (!r.failure.empty()) ++t.failed, ++failed;
      if (r.failure.empty() && r.exit_code == 0) ++t.status0;
      if (r.seconds > results_[slowest].seconds) slowest = k;
    }
    std::printf("\ncli_fuzz summary (seed %llu):\n  %-13s %6s %6s %11s %6s %9s %11s\n", static_cast<unsigned long long>(s_.seed),
                "target", "cases", "passed", "(of them 0)", "failed", "mean s", "mean cpu s");
    for (const auto& name : target_names()) {
      if (!by_target.count(name)) continue;
      const Tally& t = by_target.at(name);
      std::printf("  %-13s %6d %6d %11d %6d %9.2f %11.2f\n", name.c_str(), t.cases, t.cases - t.failed, t.status0, t.failed,
                  t.seconds / t.cases, t.cpu_seconds / t.cases);
    }
    const CaseResult& slow = results_[slowest];
    std::printf("  slowest: case %d (%s) %.2f s: %s\n", indices[slowest], slow.target.c_str(), slow.seconds,
                slow.command.c_str());
    std::printf("  %zu cases in %.1f s (children's CPU time %.1f s)\n", results_.size(), wall_seconds, cpu_seconds);
    std::printf("%d of %zu cases failed%s\n", failed, results_.size(),
                failed ? (", kept under " + s_.failures_dir.string()).c_str() : "");
    return failed == 0 ? 0 : 1;
  }

  Settings s_;
  Corpus corpus_;
  fs::path work_dir_;
  std::vector<CaseResult> results_;
  std::atomic<std::size_t> done_{0};
  std::mutex log_mutex_;
};

}  // namespace

int main(int argc, char** argv) {
  Settings settings = read_settings(argc, argv);
  if (access(settings.program.c_str(), X_OK) != 0) {
    std::fprintf(stderr, "cli_fuzz: %s is not an executable program\n", settings.program.c_str());
    return 2;
  }
  const char* tmp = std::getenv("TMPDIR");
  std::string work_template = std::string(tmp && *tmp ? tmp : "/tmp") + "/pz-cli-fuzz-XXXXXX";
  if (!mkdtemp(work_template.data())) {
    std::perror("cli_fuzz: mkdtemp");
    return 2;
  }
  Corpus corpus;
  try {
    corpus = load_corpus(settings.source_dir);
    add_generated_seeds(corpus, settings.program, work_template + "/seeds", settings.limits);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    std::error_code ec;
    fs::remove_all(work_template, ec);
    return 2;
  }
  const int status = Fuzzer(std::move(settings), std::move(corpus), work_template).run();
  std::error_code ec;
  fs::remove_all(work_template, ec);
  return status;
}

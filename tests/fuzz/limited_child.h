// One run of a command under limits, for the CLI fuzz driver: the child is started with
// fork/exec in its own process group, with standard input from a file (or /dev/null), standard output
// and error written to the given files, an address-space limit (RLIMIT_AS) and a wall-clock
// limit after which the whole process group is killed (SIGKILL). The process group is also
// killed after a normal exit, so that nothing the child started outlives the run, and the
// child is killed if the driver dies (PR_SET_PDEATHSIG).
//
// Safe to call from several threads at once: everything the child needs is prepared before
// fork(), and between fork() and exec() the child only makes async-signal-safe calls.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

namespace pz::fuzz {

struct ChildLimits {
  double seconds = 20;            // wall clock, then SIGKILL to the process group
  std::size_t memory_bytes = 0;   // RLIMIT_AS; 0: no limit (sanitizer builds reserve terabytes)
};

struct ChildRun {
  std::vector<std::string> argv;  // argv[0] is the program's path (no PATH search)
  std::string working_dir;
  std::string stdout_path, stderr_path;
  std::string stdin_path;  // "" reads /dev/null
};

struct ChildOutcome {
  enum class Kind { kExited, kSignaled, kTimedOut, kNotStarted };
  Kind kind = Kind::kNotStarted;
  int exit_code = 0;   // kExited
  int signal = 0;      // kSignaled
  double seconds = 0;  // wall time from start to exit (or to the kill)
  double cpu_seconds = 0;  // user + system time of the child (not of its own children)
  std::string error;   // kNotStarted: why (fork, open, chdir or exec failed)
};

ChildOutcome run_limited(const ChildRun& run, const ChildLimits& limits);

// The same in two halves, for a child that serves while the driver talks to it (a server):
// start_child starts it; wait_child waits until it ends or `limits.seconds` after its start,
// then kills its process group. `signal_child` signals the child alone (SIGTERM: stop).
struct StartedChild {
  int pid = -1;                // -1: not started (outcome.error says why)
  std::chrono::steady_clock::time_point start;
  ChildOutcome not_started;    // when pid is -1
};
StartedChild start_child(const ChildRun& run, const ChildLimits& limits);
ChildOutcome wait_child(const StartedChild& child, const ChildLimits& limits);
void signal_child(const StartedChild& child, int signal);
// True while the child runs (it has not exited; it is not reaped here).
bool child_running(const StartedChild& child);

// "exit status 1", "signal 11 (SIGSEGV)", "timeout after 20.0 s", "not started: ...".
std::string describe(const ChildOutcome& outcome);

// At most `max_bytes` from the start of the file ("" when it cannot be read).
std::string read_head(const std::string& path, std::size_t max_bytes);

}  // namespace pz::fuzz

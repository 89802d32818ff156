#include "tests/fuzz/limited_child.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <chrono>
#include <cstring>
#include <fstream>
#include <thread>

namespace pz::fuzz {

namespace {

using Clock = std::chrono::steady_clock;

struct OpenFiles {
  int stdin_fd = -1, stdout_fd = -1, stderr_fd = -1;
  int error_pipe[2] = {-1, -1};  // the child reports a failed exec through it (close-on-exec)
  ~OpenFiles() {
    for (int fd : {stdin_fd, stdout_fd, stderr_fd, error_pipe[0], error_pipe[1]})
      if (fd >= 0) close(fd);
  }
};

int open_output(const std::string& path) {
  return open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
}

// The forked child: from here on only async-signal-safe calls until exec.
[[noreturn]] void exec_child(const OpenFiles& files, const char* dir, char* const argv[], const ChildLimits& limits,
                             pid_t parent) {
  setpgid(0, 0);
  // Its own group shields it from signals sent to the driver's; dying with the driver (a
  // ctest timeout kills it) keeps a hung case from outliving the run.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(127);
  int step = 0;
  if (dup2(files.stdin_fd, 0) < 0 || dup2(files.stdout_fd, 1) < 0 || dup2(files.stderr_fd, 2) < 0) step = 1;
  if (step == 0 && limits.memory_bytes > 0) {
    const struct rlimit as{limits.memory_bytes, limits.memory_bytes};
    if (setrlimit(RLIMIT_AS, &as) != 0) step = 2;
  }
  if (step == 0 && chdir(dir) != 0) step = 3;
  if (step == 0) execv(argv[0], argv);
  const int report[2] = {step == 0 ? 4 : step, errno};
  [[maybe_unused]] auto written = write(files.error_pipe[1], report, sizeof report);
  _exit(127);
}

// Why the child could not start, from its report on the error pipe ("" when it exec'd).
std::string read_start_error(int fd) {
  int report[2];
  ssize_t got;
  do {
    got = read(fd, report, sizeof report);
  } while (got < 0 && errno == EINTR);
  if (got != static_cast<ssize_t>(sizeof report)) return "";
  static const char* const kSteps[] = {"", "dup2", "setrlimit", "chdir", "exec"};
  return std::string(kSteps[std::clamp(report[0], 0, 4)]) + ": " + std::strerror(report[1]);
}

double cpu_seconds(const struct rusage& usage) {
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6;
}

// Waits for `pid` until the deadline; true when it ended (status and usage filled in).
bool wait_until(pid_t pid, Clock::time_point deadline, int& status, struct rusage& usage) {
  auto pause = std::chrono::milliseconds(1);
  for (;;) {
    const pid_t r = wait4(pid, &status, WNOHANG, &usage);
    if (r == pid || (r < 0 && errno != EINTR)) return true;
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(20));
  }
}

}  // namespace

StartedChild start_child(const ChildRun& run, const ChildLimits& limits) {
  StartedChild child;
  child.start = Clock::now();
  OpenFiles files;
  files.stdin_fd = open(run.stdin_path.empty() ? "/dev/null" : run.stdin_path.c_str(), O_RDONLY | O_CLOEXEC);
  files.stdout_fd = open_output(run.stdout_path);
  files.stderr_fd = open_output(run.stderr_path);
  if (files.stdin_fd < 0 || files.stdout_fd < 0 || files.stderr_fd < 0 || pipe2(files.error_pipe, O_CLOEXEC) != 0) {
    child.not_started.error = std::string("cannot open the child's files: ") + std::strerror(errno);
    return child;
  }
  std::vector<char*> argv;
  for (const auto& a : run.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);

  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    child.not_started.error = std::string("fork: ") + std::strerror(errno);
    return child;
  }
  if (pid == 0) exec_child(files, run.working_dir.c_str(), argv.data(), limits, parent);
  setpgid(pid, pid);  // also here, so the group exists before any kill below
  close(files.error_pipe[1]);
  files.error_pipe[1] = -1;
  const std::string start_error = read_start_error(files.error_pipe[0]);  // returns at exec or exit
  if (!start_error.empty()) {
    int status = 0;
    waitpid(pid, &status, 0);
    child.not_started.error = start_error;
    return child;
  }
  child.pid = pid;
  return child;
}

ChildOutcome wait_child(const StartedChild& child, const ChildLimits& limits) {
  if (child.pid < 0) return child.not_started;
  ChildOutcome outcome;
  int status = 0;
  struct rusage usage{};
  const auto start = child.start;
  const auto deadline = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(limits.seconds));
  const bool ended = wait_until(child.pid, deadline, status, usage);
  kill(-child.pid, SIGKILL);  // the child's group: the child itself on a timeout, strays otherwise
  if (!ended) wait4(child.pid, &status, 0, &usage);
  outcome.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  outcome.cpu_seconds = cpu_seconds(usage);
  if (!ended) {
    outcome.kind = ChildOutcome::Kind::kTimedOut;
  } else if (WIFSIGNALED(status)) {
    outcome.kind = ChildOutcome::Kind::kSignaled;
    outcome.signal = WTERMSIG(status);
  } else {
    outcome.kind = ChildOutcome::Kind::kExited;
    outcome.exit_code = WEXITSTATUS(status);
  }
  return outcome;
}

ChildOutcome run_limited(const ChildRun& run, const ChildLimits& limits) {
  return wait_child(start_child(run, limits), limits);
}

void signal_child(const StartedChild& child, int signal) {
  if (child.pid > 0) kill(child.pid, signal);
}

bool child_running(const StartedChild& child) {
  if (child.pid <= 0) return false;
  siginfo_t info{};
  if (waitid(P_PID, static_cast<id_t>(child.pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0) return false;
  return info.si_pid == 0;  // WNOHANG: zero while it has not exited
}

std::string describe(const ChildOutcome& outcome) {
  switch (outcome.kind) {
    case ChildOutcome::Kind::kExited:
      return "exit status " + std::to_string(outcome.exit_code);
    case ChildOutcome::Kind::kSignaled: {
      const char* name = sigabbrev_np(outcome.signal);
      return "signal " + std::to_string(outcome.signal) + (name ? std::string(" (SIG") + name + ")" : "");
    }
    case ChildOutcome::Kind::kTimedOut: {
      char text[64];
      std::snprintf(text, sizeof text, "timeout after %.1f s", outcome.seconds);
      return text;
    }
    case ChildOutcome::Kind::kNotStarted:
      return "not started: " + outcome.error;
  }
  return "?";
}

std::string read_head(const std::string& path, std::size_t max_bytes) {
  std::ifstream in(path, std::ios::binary);
  std::string head(max_bytes, '\0');
  in.read(head.data(), static_cast<std::streamsize>(max_bytes));
  head.resize(static_cast<std::size_t>(std::max<std::streamsize>(in.gcount(), 0)));
  return head;
}

}  // namespace pz::fuzz

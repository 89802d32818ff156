#include "util/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace pz::util {
namespace {

constexpr std::size_t kMaxLineBytes = 1 << 20;  // longer output without a newline is cut into lines

// Milliseconds from now until `deadline` for poll(), rounded up, 0 when it has passed.
int milliseconds_until(Subprocess::Clock::time_point deadline) {
  const auto left = deadline - Subprocess::Clock::now();
  if (left <= Subprocess::Clock::duration::zero()) return 0;
  const auto ms = std::chrono::ceil<std::chrono::milliseconds>(left).count();
  return static_cast<int>(std::min<long long>(ms, INT_MAX));
}

void set_nonblocking(int fd) { ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK); }

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

// Blocks SIGPIPE in the calling thread for its lifetime. If a write raised one that was not
// already pending, it is consumed before the mask is restored, so it is never delivered.
class SigpipeBlock {
 public:
  SigpipeBlock() {
    sigemptyset(&pipe_);
    sigaddset(&pipe_, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_, &previous_);
    sigset_t pending;
    sigpending(&pending);
    was_pending_ = sigismember(&pending, SIGPIPE) == 1;
  }
  ~SigpipeBlock() {
    if (raised_ && !was_pending_) {
      const timespec no_wait{0, 0};
      while (sigtimedwait(&pipe_, nullptr, &no_wait) < 0 && errno == EINTR) {
      }
    }
    pthread_sigmask(SIG_SETMASK, &previous_, nullptr);
  }
  SigpipeBlock(const SigpipeBlock&) = delete;
  SigpipeBlock& operator=(const SigpipeBlock&) = delete;
  void note_raised() { raised_ = true; }

 private:
  sigset_t pipe_, previous_;
  bool was_pending_ = false, raised_ = false;
};

// posix_spawn's attribute and file-action objects, destroyed on every path.
struct SpawnSetup {
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attributes;
  SpawnSetup() {
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attributes);
  }
  ~SpawnSetup() {
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
  }
};

}  // namespace

Subprocess::Subprocess(const std::string& command, const std::string& stderr_log) {
  int to_child[2], from_child[2];
  if (::pipe2(to_child, O_CLOEXEC) != 0) {
    throw std::runtime_error(std::string("cannot create a pipe: ") + std::strerror(errno));
  }
  if (::pipe2(from_child, O_CLOEXEC) != 0) {
    const int error = errno;
    ::close(to_child[0]);
    ::close(to_child[1]);
    throw std::runtime_error(std::string("cannot create a pipe: ") + std::strerror(error));
  }
  int spawn_error = 0;
  {
    SpawnSetup setup;
    // dup2 onto 0/1 clears close-on-exec there; every other pipe end closes at exec.
    posix_spawn_file_actions_adddup2(&setup.actions, to_child[0], STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&setup.actions, from_child[1], STDOUT_FILENO);
    posix_spawn_file_actions_addopen(&setup.actions, STDERR_FILENO,
                                     stderr_log.empty() ? "/dev/null" : stderr_log.c_str(),
                                     O_WRONLY | O_CREAT | O_APPEND, 0644);
    // The child starts with no blocked signals and SIGPIPE's default action, whatever this
    // thread's state, in a process group of its own.
    sigset_t none, defaults;
    sigemptyset(&none);
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGPIPE);
    posix_spawnattr_setsigmask(&setup.attributes, &none);
    posix_spawnattr_setsigdefault(&setup.attributes, &defaults);
    posix_spawnattr_setpgroup(&setup.attributes, 0);
    posix_spawnattr_setflags(&setup.attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);
    std::string shell = "sh", dash_c = "-c", script = command;
    char* argv[] = {shell.data(), dash_c.data(), script.data(), nullptr};
    spawn_error = posix_spawn(&pid_, "/bin/sh", &setup.actions, &setup.attributes, argv, environ);
  }
  ::close(to_child[0]);
  ::close(from_child[1]);
  input_fd_ = to_child[1];
  output_fd_ = from_child[0];
  if (spawn_error != 0) {
    pid_ = -1;
    close_fd(input_fd_);
    close_fd(output_fd_);
    throw std::runtime_error("cannot start '" + command + "': " + std::strerror(spawn_error));
  }
  set_nonblocking(input_fd_);
  set_nonblocking(output_fd_);
}

Subprocess::~Subprocess() { stop(0.0); }

void Subprocess::close_input() { close_fd(input_fd_); }

bool Subprocess::write(std::string_view data, Clock::time_point deadline) {
  if (input_fd_ < 0) return false;
  SigpipeBlock block;
  while (!data.empty()) {
    const ssize_t written = ::write(input_fd_, data.data(), data.size());
    if (written > 0) {
      data.remove_prefix(static_cast<std::size_t>(written));
      continue;
    }
    if (written < 0 && errno == EINTR) continue;
    if (written < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      pollfd ready{input_fd_, POLLOUT, 0};
      const int polled = ::poll(&ready, 1, milliseconds_until(deadline));
      if (polled < 0 && errno == EINTR) continue;
      if (polled == 0) return false;  // the child stopped reading
      continue;                       // writable, or an error the next write reports
    }
    if (written < 0 && errno == EPIPE) block.note_raised();
    close_input();
    return false;
  }
  return true;
}

Subprocess::ReadStatus Subprocess::read_line(std::string& line, Clock::time_point deadline) {
  for (;;) {
    const std::size_t newline = buffer_.find('\n');
    if (newline != std::string::npos || buffer_.size() >= kMaxLineBytes || (output_ended_ && !buffer_.empty())) {
      const std::size_t length = std::min(newline, buffer_.size());
      line.assign(buffer_, 0, length);
      buffer_.erase(0, std::min(length + 1, buffer_.size()));
      if (!line.empty() && line.back() == '\r') line.pop_back();
      return ReadStatus::kLine;
    }
    if (output_ended_) return ReadStatus::kEndOfOutput;
    pollfd ready{output_fd_, POLLIN, 0};
    const int polled = ::poll(&ready, 1, milliseconds_until(deadline));
    if (polled < 0) {
      if (errno == EINTR) continue;
      output_ended_ = true;
      continue;
    }
    if (polled == 0) return ReadStatus::kTimedOut;
    char chunk[4096];
    const ssize_t got = ::read(output_fd_, chunk, sizeof chunk);
    if (got > 0) {
      buffer_.append(chunk, static_cast<std::size_t>(got));
    } else if (got == 0 || (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK)) {
      output_ended_ = true;
    }
  }
}

bool Subprocess::running() {
  if (pid_ < 0 || reaped_) return false;
  int status = 0;
  const pid_t done = ::waitpid(pid_, &status, WNOHANG);
  if (done == pid_ || (done < 0 && errno == ECHILD)) {
    reaped_ = true;
    wait_status_ = status;
  }
  return !reaped_;
}

bool Subprocess::wait_for_exit(double seconds) {
  const auto deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  while (running()) {
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return true;
}

std::string Subprocess::exit_description(double wait_seconds) {
  if (!wait_for_exit(wait_seconds)) return "is running";
  if (WIFEXITED(wait_status_)) return "exited (status " + std::to_string(WEXITSTATUS(wait_status_)) + ")";
  if (WIFSIGNALED(wait_status_)) return "was killed by signal " + std::to_string(WTERMSIG(wait_status_));
  return "ended";
}

void Subprocess::stop(double grace_seconds) {
  close_input();
  if (pid_ >= 0 && !reaped_ && !wait_for_exit(grace_seconds)) {
    ::kill(-pid_, SIGTERM);
    if (!wait_for_exit(1.0)) {
      ::kill(-pid_, SIGKILL);
      int status = 0;
      while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
      }
      reaped_ = true;
      wait_status_ = status;
    }
  }
  close_fd(output_fd_);
}

}  // namespace pz::util

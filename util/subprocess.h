// A child process spoken to through pipes: `/bin/sh -c COMMAND` with its standard input and
// output connected to this process and its standard error appended to a log file (or
// discarded). Made for line protocols such as GTP, where the other side may crash, hang or
// talk nonsense and this side must never block past a deadline or die of SIGPIPE:
//
//  * Writes and reads take a deadline; they wait with poll() on non-blocking pipes and give
//    up when it passes. A write to a child that closed its input reports false (EPIPE)
//    instead of raising SIGPIPE: the signal is blocked in the writing thread for the call
//    and a pending one it caused is consumed, so the process's signal handling is untouched.
//  * The child runs in its own process group, so stop() reaches the whole pipeline the
//    shell may start. Its pipe ends are close-on-exec here, so children started by other
//    threads never inherit them (a child sees end of input as soon as this side closes).
//  * stop() (and the destructor) closes the child's input, waits up to a grace period for it
//    to exit, then sends SIGTERM, then SIGKILL, and always reaps it: no zombies, no orphans.
//
// One Subprocess is used by one thread at a time.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <string_view>

namespace pz::util {

class Subprocess {
 public:
  using Clock = std::chrono::steady_clock;

  // Starts the command. Throws std::runtime_error when no process can be started (no
  // /bin/sh, no pipes, an unwritable log); a command that does not exist starts a shell
  // that exits with status 127.
  explicit Subprocess(const std::string& command, const std::string& stderr_log = "");
  ~Subprocess();
  Subprocess(const Subprocess&) = delete;
  Subprocess& operator=(const Subprocess&) = delete;

  // Writes all of `data` to the child's input. False when the child closed it or exited,
  // or when the deadline passed with data still unwritten (the child stopped reading).
  bool write(std::string_view data, Clock::time_point deadline);

  enum class ReadStatus { kLine, kEndOfOutput, kTimedOut };
  // The next line of the child's output, without its "\n" (or "\r\n"). kEndOfOutput when the
  // child closed its output (usually: it exited) with no complete line left; an unterminated
  // last piece of text is returned as a line first.
  ReadStatus read_line(std::string& line, Clock::time_point deadline);

  // True while the child has not exited (reaps it when it has).
  bool running();
  // How the child ended: "exited (status 1)", "was killed by signal 9", or "is running"
  // when it has not ended within `wait_seconds`.
  std::string exit_description(double wait_seconds = 0.2);

  // Ends the child (see the header comment) and reaps it. Idempotent.
  void stop(double grace_seconds = 0.0);

  pid_t pid() const { return pid_; }

 private:
  bool wait_for_exit(double seconds);
  void close_input();

  pid_t pid_ = -1;
  int input_fd_ = -1;   // the child's standard input (our write end)
  int output_fd_ = -1;  // the child's standard output (our read end)
  std::string buffer_;  // output read but not yet returned as lines
  bool output_ended_ = false;
  bool reaped_ = false;
  int wait_status_ = 0;
};

}  // namespace pz::util

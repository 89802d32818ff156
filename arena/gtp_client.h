// One external GTP engine: a child process (util/subprocess.h) that is sent commands and
// answers them, each within a time limit.
//
// Every way an engine can let its caller down throws arena::EngineFailure whose reason names
// the engine, the command and what happened: it cannot be started, it exits or closes its
// output ("exited (status 1) on 'genmove b'"), it takes longer than the limit ("timed out
// after 10 s on 'genmove b'"), it answers with something that is not a GTP response, or it
// answers with a failure response ("refused 'play b d4': illegal move"). The first failure
// stops the engine and is final: later commands throw it again without talking to it.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "arena/player.h"
#include "util/subprocess.h"

namespace pz::arena {

class GtpClient {
 public:
  // Starts `command` with /bin/sh; the engine's standard error is appended to `stderr_log`
  // (discarded when empty). Throws EngineFailure when no process can be started.
  GtpClient(std::string command, double timeout_seconds, const std::string& stderr_log = "");
  // Asks an engine in good health to quit, then stops the process (util::Subprocess::stop).
  ~GtpClient();
  GtpClient(const GtpClient&) = delete;
  GtpClient& operator=(const GtpClient&) = delete;

  // Sends one command line and returns the text of the engine's success response: after '='
  // and the optional id, trimmed, the lines of a multi-line response joined by "\n".
  std::string send(const std::string& command);

  const std::string& command() const { return command_; }
  double timeout_seconds() const { return timeout_seconds_; }

 private:
  [[noreturn]] void fail(const std::string& what);
  // Reads the next line of the response to `command` within `deadline`; fails on a timeout
  // or the end of the engine's output.
  std::string read_line(const std::string& command, util::Subprocess::Clock::time_point deadline);
  util::Subprocess::Clock::time_point deadline() const;

  std::string command_;
  double timeout_seconds_;
  std::unique_ptr<util::Subprocess> process_;
  std::optional<EngineFailure> failure_;
};

}  // namespace pz::arena

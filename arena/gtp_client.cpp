#include "arena/gtp_client.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <stdexcept>

#include "util/spec.h"

namespace pz::arena {
namespace {

using Clock = util::Subprocess::Clock;

// `text` cut to a length that reads well inside a message.
std::string excerpt(const std::string& text) {
  constexpr std::size_t kMax = 60;
  return text.size() <= kMax ? text : text.substr(0, kMax) + "...";
}

bool is_blank(const std::string& line) {
  return std::all_of(line.begin(), line.end(), [](unsigned char c) { return std::isspace(c); });
}

}  // namespace

GtpClient::GtpClient(std::string command, double timeout_seconds, const std::string& stderr_log)
    : command_(std::move(command)), timeout_seconds_(timeout_seconds) {
  try {
    process_ = std::make_unique<util::Subprocess>(command_, stderr_log);
  } catch (const std::runtime_error& error) {
    failure_.emplace("gtp engine '" + command_ + "' could not be started: " + error.what());
    throw *failure_;
  }
}

GtpClient::~GtpClient() {
  if (failure_ || !process_) return;  // a failed engine was stopped when it failed
  // A polite goodbye, bounded: the answer is not waited for beyond a second.
  const auto until = std::min(deadline(), Clock::now() + std::chrono::seconds(1));
  if (process_->write("quit\n", until)) {
    std::string line;
    while (process_->read_line(line, until) == util::Subprocess::ReadStatus::kLine && !is_blank(line)) {
    }
  }
  process_->stop(1.0);
}

Clock::time_point GtpClient::deadline() const {
  return Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_seconds_));
}

void GtpClient::fail(const std::string& what) {
  failure_.emplace("gtp engine '" + command_ + "' " + what);
  process_->stop(0.0);
  throw *failure_;
}

std::string GtpClient::read_line(const std::string& command, Clock::time_point until) {
  std::string line;
  switch (process_->read_line(line, until)) {
    case util::Subprocess::ReadStatus::kLine:
      return line;
    case util::Subprocess::ReadStatus::kTimedOut:
      fail("timed out after " + util::format_double(timeout_seconds_) + " s on '" + command + "'");
    case util::Subprocess::ReadStatus::kEndOfOutput:
      break;
  }
  const std::string ended = process_->exit_description();
  fail((ended == "is running" ? std::string("closed its output") : ended) + " on '" + command + "'");
}

std::string GtpClient::send(const std::string& command) {
  if (failure_) throw *failure_;
  const auto until = deadline();
  if (!process_->write(command + "\n", until)) {
    const std::string ended = process_->exit_description();
    fail((ended == "is running" ? std::string("stopped reading its input") : ended) + " before '" + command + "'");
  }
  std::string line = read_line(command, until);
  while (is_blank(line)) line = read_line(command, until);
  if (line[0] != '=' && line[0] != '?') {
    fail("answered '" + command + "' with '" + excerpt(line) + "', which is not a GTP response");
  }
  const bool success = line[0] == '=';
  std::size_t text_start = 1;
  while (text_start < line.size() && std::isdigit(static_cast<unsigned char>(line[text_start]))) ++text_start;
  std::string text = util::trim(line.substr(text_start));
  for (line = read_line(command, until); !is_blank(line); line = read_line(command, until)) text += "\n" + line;
  if (!success) fail("refused '" + command + "': " + (text.empty() ? std::string("no reason given") : text));
  return text;
}

}  // namespace pz::arena

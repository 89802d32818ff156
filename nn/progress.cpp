#include "nn/progress.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>

namespace pz::nn {

Progress::Progress(bool quiet) : quiet_(quiet), tty_(::isatty(STDERR_FILENO) != 0) {}

void Progress::update(const std::string& line) {
  if (quiet_) return;
  current_ = line;
  const auto now = std::chrono::steady_clock::now();
  const auto interval = tty_ ? std::chrono::milliseconds(250) : std::chrono::milliseconds(30000);
  if (drawn_ && now - last_ < interval) return;
  last_ = now;
  drawn_ = true;
  if (tty_) {
    std::fprintf(stderr, "\r\033[K%s", line.c_str());
  } else {
    std::fprintf(stderr, "%s\n", line.c_str());
  }
  std::fflush(stderr);
}

void Progress::warning(const std::string& line) { print("warning: " + line); }

void Progress::message(const std::string& line) {
  if (!quiet_) print(line);
}

void Progress::print(const std::string& line) {
  if (tty_ && drawn_) {
    std::fprintf(stderr, "\r\033[K%s\n%s", line.c_str(), current_.c_str());
  } else {
    std::fprintf(stderr, "%s\n", line.c_str());
  }
  std::fflush(stderr);
}

void Progress::finish() {
  if (quiet_ || !tty_ || !drawn_) return;
  std::fprintf(stderr, "\n");
  std::fflush(stderr);
  drawn_ = false;
}

std::string format_duration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "--:--";
  const long long s = std::llround(seconds);
  char buf[32];
  if (s >= 3600) {
    std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", s / 3600, (s / 60) % 60, s % 60);
  } else {
    std::snprintf(buf, sizeof buf, "%lld:%02lld", s / 60, s % 60);
  }
  return buf;
}

std::string format_count(double value) {
  char buf[32];
  if (value >= 1e6) {
    std::snprintf(buf, sizeof buf, "%.2fM", value / 1e6);
  } else if (value >= 1e4) {
    std::snprintf(buf, sizeof buf, "%.1fk", value / 1e3);
  } else {
    std::snprintf(buf, sizeof buf, "%.0f", value);
  }
  return buf;
}

}  // namespace pz::nn

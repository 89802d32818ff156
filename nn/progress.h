// The terminal side of a run: one progress line redrawn in place on a terminal (or printed
// every 30 s when stderr is a file or pipe), and summary lines that stay. Everything goes to
// stderr so stdout stays free for --log-json.
#pragma once

#include <chrono>
#include <string>

namespace pz::nn {

class Progress {
 public:
  explicit Progress(bool quiet);
  // Redraws the progress line (at most 4 times a second on a terminal).
  void update(const std::string& line);
  // A line that stays (the progress line is redrawn under it).
  void message(const std::string& line);
  // A line printed even when quiet, prefixed "warning: ".
  void warning(const std::string& line);
  void finish();

 private:
  void print(const std::string& line);  // above the progress line, if one is drawn

  bool quiet_, tty_;
  std::chrono::steady_clock::time_point last_{};
  std::string current_;
  bool drawn_ = false;
};

// "1:02:03", "4:05".
std::string format_duration(double seconds);
// "12.3k", "4.56M".
std::string format_count(double value);

}  // namespace pz::nn

// Metrics of a run: JSON lines appended to metrics.jsonl (flushed per line, so `tail -f`
// and a kill both see whole lines), and the SVG plots drawn from that file.
#pragma once

#include <nlohmann/json.hpp>

#include <fstream>
#include <functional>
#include <mutex>
#include <string>

namespace pz::nn {

class MetricsLog {
 public:
  explicit MetricsLog(const std::string& path);
  // Appends the line, then hands it to the observer (on the writer's thread, in order).
  void write(const nlohmann::json& line);
  void set_observer(std::function<void(const nlohmann::json&)> observer) { observer_ = std::move(observer); }

 private:
  std::mutex mutex_;
  std::ofstream out_;
  std::function<void(const nlohmann::json&)> observer_;
};

// Reads metrics.jsonl (skipping unreadable lines) and writes plots/loss.svg (total, policy
// and value loss), plots/lr.svg and plots/strength.svg (evaluation score per opponent).
void write_plots(const std::string& metrics_path, const std::string& plots_dir);

}  // namespace pz::nn

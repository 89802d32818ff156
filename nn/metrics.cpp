#include "nn/metrics.h"

#include <map>
#include <stdexcept>
#include <vector>

#include "nn/files.h"
#include "util/svg_plot.h"

namespace pz::nn {

MetricsLog::MetricsLog(const std::string& path) : out_(path, std::ios::app) {
  if (!out_) throw std::runtime_error("cannot append to " + path);
}

void MetricsLog::write(const nlohmann::json& line) {
  std::lock_guard lock(mutex_);
  out_ << line.dump() << '\n';
  out_.flush();
  if (observer_) observer_(line);
}

void write_plots(const std::string& metrics_path, const std::string& plots_dir) {
  std::ifstream in(metrics_path);
  util::PlotSeries loss{"loss", {}, {}}, policy{"policy", {}, {}}, value{"value", {}, {}}, lr{"lr", {}, {}};
  std::map<std::string, util::PlotSeries> strength, accuracy;
  std::string line;
  while (std::getline(in, line)) {
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(line);
    } catch (const std::exception&) {
      continue;
    }
    const auto step = static_cast<double>(j.value("step", std::int64_t{0}));
    const std::string kind = j.value("kind", "");
    if (kind == "train") {
      loss.x.push_back(step), loss.y.push_back(j.value("loss", 0.0));
      policy.x.push_back(step), policy.y.push_back(j.value("policy_loss", 0.0));
      value.x.push_back(step), value.y.push_back(j.value("value_loss", 0.0));
      lr.x.push_back(step), lr.y.push_back(j.value("lr", 0.0));
    } else if (kind == "eval") {
      const std::string opponent = j.value("opponent", "?");
      auto& s = strength[opponent];
      s.label = "vs " + opponent;
      s.x.push_back(step);
      s.y.push_back(j.value("score", 0.0));
    } else if (kind == "accuracy") {
      const std::string player = j.value("player", "?");
      for (const auto& [suffix, key] : {std::pair{"", "share"}, std::pair{" (harder)", "harder_share"}}) {
        auto& s = accuracy[player + suffix];
        s.label = player + suffix;
        s.x.push_back(step);
        s.y.push_back(j.value(key, 0.0));
      }
    }
  }
  if (!loss.x.empty()) {
    write_text_atomically(plots_dir + "/loss.svg",
                          util::svg_line_plot({loss, policy, value}, {"training loss", "step", "loss", 800, 480, false}));
    write_text_atomically(plots_dir + "/lr.svg", util::svg_line_plot({lr}, {"learning rate", "step", "lr", 800, 480, false}));
  }
  if (!strength.empty()) {
    std::vector<util::PlotSeries> series;
    for (auto& [name, s] : strength) series.push_back(s);
    write_text_atomically(plots_dir + "/strength.svg",
                          util::svg_line_plot(series, {"evaluation score (win = 1, draw = 0.5)", "step", "score", 800, 480, false}));
  }
  if (!accuracy.empty()) {
    std::vector<util::PlotSeries> series;
    for (auto& [name, s] : accuracy) series.push_back(s);
    write_text_atomically(plots_dir + "/accuracy.svg",
                          util::svg_line_plot(series, {"share of solved positions where the move keeps the value", "step",
                                                       "accuracy", 800, 480, false}));
  }
}

}  // namespace pz::nn

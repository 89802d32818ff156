// Line plots as standalone SVG: learning-rate curves (`polyzero lr --plot`), and the loss and
// rating curves a training run draws later. No dependencies; the output opens in any browser.
//
// What a reader gets: a frame with axes, "nice" ticks (1, 2, 5 × 10^k, or decades on a log
// axis) with grid lines and labels, axis titles, a title, and a legend when there is more
// than one series. Non-finite points (and points ≤ 0 on a log axis) break the line rather
// than distort the scale. A constant series gets a range around its value.
#pragma once

#include <string>
#include <vector>

namespace pz::util {

struct PlotSeries {
  std::string label;
  std::vector<double> x;  // empty: 0, 1, 2, ... (one per y)
  std::vector<double> y;
};

struct PlotOptions {
  std::string title;
  std::string x_label = "step";
  std::string y_label;
  int width = 800;
  int height = 480;
  bool log_y = false;
};

std::string svg_line_plot(const std::vector<PlotSeries>& series, const PlotOptions& options);

// About `target` evenly spaced round values covering [lo, hi]: the step is 1, 2 or 5 × 10^k,
// the first tick ≤ lo and the last ≥ hi.
std::vector<double> nice_ticks(double lo, double hi, int target = 6);

// A tick label: as few digits as distinguish ticks `step` apart ("0.25", "1500", "2e-05").
std::string format_tick(double value, double step);

// Escapes text for SVG/XML character data and attribute values.
std::string xml_escape(const std::string& text);

}  // namespace pz::util

#include "util/svg_plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

namespace pz::util {

namespace {

constexpr const char* kColours[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#17becf"};

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

struct Range {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -std::numeric_limits<double>::infinity();
  void add(double v) {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  bool empty() const { return !(lo <= hi); }
};

// Gives a degenerate range some width so that a constant curve sits mid-plot.
void widen(Range& r) {
  if (r.empty()) {
    r.lo = 0;
    r.hi = 1;
  } else if (r.lo == r.hi) {
    const double pad = r.lo == 0 ? 1.0 : std::abs(r.lo) * 0.1;
    r.lo -= pad;
    r.hi += pad;
  }
}

double nice_step(double span, int target) {
  const double raw = span / std::max(1, target);
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  const double fraction = raw / magnitude;
  const double nice = fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 5 ? 5 : 10;
  return nice * magnitude;
}

}  // namespace

std::string xml_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += c;
    }
  }
  return out;
}

std::vector<double> nice_ticks(double lo, double hi, int target) {
  if (!(lo <= hi) || !std::isfinite(lo) || !std::isfinite(hi)) return {};
  if (lo == hi) return {lo};
  const double step = nice_step(hi - lo, target);
  const double first = std::floor(lo / step + 1e-9) * step;
  const double last = std::ceil(hi / step - 1e-9) * step;
  std::vector<double> ticks;
  const int count = static_cast<int>(std::llround((last - first) / step));
  for (int i = 0; i <= count; ++i) {
    double v = first + i * step;
    if (std::abs(v) < step * 1e-9) v = 0;  // no "-0" or 1e-17 from rounding
    ticks.push_back(v);
  }
  return ticks;
}

std::string format_tick(double value, double step) {
  char buf[48];
  const double mag = std::max(std::abs(value), std::abs(step));
  if (value == 0) return "0";
  if (mag >= 1e6 || step < 1e-4) {
    // Scientific, with as many digits as the step needs relative to the value.
    const int digits = std::clamp(static_cast<int>(std::ceil(std::log10(std::abs(value) / step))) + 1, 1, 10);
    std::snprintf(buf, sizeof buf, "%.*g", digits, value);
  } else {
    const int decimals = std::max(0, static_cast<int>(std::ceil(-std::log10(step) - 1e-9)));
    std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  }
  // "2e-05" → "2e-5": shorter and what people write.
  std::string s = buf;
  for (const char* pat : {"e-0", "e+0"}) {
    auto pos = s.find(pat);
    if (pos != std::string::npos) s.erase(pos + 2, 1);
  }
  auto pos = s.find("e+");
  if (pos != std::string::npos) s.erase(pos + 1, 1);
  return s;
}

std::string svg_line_plot(const std::vector<PlotSeries>& series, const PlotOptions& options) {
  const bool log_y = options.log_y;
  auto y_value = [&](double y) { return log_y ? std::log10(y) : y; };
  auto usable = [&](double x, double y) { return std::isfinite(x) && std::isfinite(y) && (!log_y || y > 0); };

  Range xr, yr;
  for (const auto& s : series) {
    for (std::size_t i = 0; i < s.y.size(); ++i) {
      const double x = s.x.empty() ? static_cast<double>(i) : (i < s.x.size() ? s.x[i] : NAN);
      if (!usable(x, s.y[i])) continue;
      xr.add(x);
      yr.add(y_value(s.y[i]));
    }
  }
  const bool no_data = xr.empty();
  widen(xr);
  widen(yr);

  std::vector<double> xt = nice_ticks(xr.lo, xr.hi, 8);
  std::vector<double> yt;
  if (log_y) {
    for (double d = std::floor(yr.lo); d <= std::ceil(yr.hi) + 1e-9; d += 1) yt.push_back(d);
    if (yt.size() < 2) yt = {std::floor(yr.lo), std::floor(yr.lo) + 1};
  } else {
    yt = nice_ticks(yr.lo, yr.hi, 6);
  }
  const double x0 = xt.front(), x1 = xt.back();
  const double y0 = yt.front(), y1 = yt.back();
  const double xstep = xt.size() > 1 ? xt[1] - xt[0] : 1, ystep = yt.size() > 1 ? yt[1] - yt[0] : 1;

  // Room on the left for the widest y label (about 7 px per character at 12 px).
  std::size_t widest = 0;
  for (double v : yt) widest = std::max(widest, (log_y ? format_tick(std::pow(10.0, v), std::pow(10.0, v)) : format_tick(v, ystep)).size());
  const double left = 30 + 7.0 * static_cast<double>(widest) + (options.y_label.empty() ? 0 : 22);
  const double right = 24, top = options.title.empty() ? 20 : 44, bottom = options.x_label.empty() ? 40 : 62;
  const double W = options.width, H = options.height;
  const double pw = std::max(10.0, W - left - right), ph = std::max(10.0, H - top - bottom);
  auto px = [&](double x) { return left + (x - x0) / (x1 - x0) * pw; };
  auto py = [&](double y) { return top + ph - (y - y0) / (y1 - y0) * ph; };

  std::ostringstream out;
  out << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << options.width << "\" height=\"" << options.height
      << "\" viewBox=\"0 0 " << options.width << ' ' << options.height
      << "\" font-family=\"Helvetica, Arial, sans-serif\" font-size=\"12\">\n";
  out << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  if (!options.title.empty())
    out << "<text x=\"" << num(left + pw / 2) << "\" y=\"26\" text-anchor=\"middle\" font-size=\"16\">"
        << xml_escape(options.title) << "</text>\n";

  // Grid and ticks.
  out << "<g class=\"grid\" stroke=\"#e0e0e0\" stroke-width=\"1\">\n";
  for (double v : xt) out << "<line x1=\"" << num(px(v)) << "\" y1=\"" << num(top) << "\" x2=\"" << num(px(v)) << "\" y2=\"" << num(top + ph) << "\"/>\n";
  for (double v : yt) out << "<line x1=\"" << num(left) << "\" y1=\"" << num(py(v)) << "\" x2=\"" << num(left + pw) << "\" y2=\"" << num(py(v)) << "\"/>\n";
  out << "</g>\n";
  out << "<g class=\"x-ticks\" text-anchor=\"middle\">\n";
  for (double v : xt)
    out << "<line x1=\"" << num(px(v)) << "\" y1=\"" << num(top + ph) << "\" x2=\"" << num(px(v)) << "\" y2=\"" << num(top + ph + 5)
        << "\" stroke=\"black\"/><text x=\"" << num(px(v)) << "\" y=\"" << num(top + ph + 19) << "\">"
        << xml_escape(format_tick(v, xstep)) << "</text>\n";
  out << "</g>\n<g class=\"y-ticks\" text-anchor=\"end\">\n";
  for (double v : yt) {
    const std::string label = log_y ? format_tick(std::pow(10.0, v), std::pow(10.0, v)) : format_tick(v, ystep);
    out << "<line x1=\"" << num(left - 5) << "\" y1=\"" << num(py(v)) << "\" x2=\"" << num(left) << "\" y2=\"" << num(py(v))
        << "\" stroke=\"black\"/><text x=\"" << num(left - 8) << "\" y=\"" << num(py(v) + 4) << "\">" << xml_escape(label)
        << "</text>\n";
  }
  out << "</g>\n";
  out << "<rect class=\"frame\" x=\"" << num(left) << "\" y=\"" << num(top) << "\" width=\"" << num(pw) << "\" height=\""
      << num(ph) << "\" fill=\"none\" stroke=\"black\"/>\n";
  if (!options.x_label.empty())
    out << "<text x=\"" << num(left + pw / 2) << "\" y=\"" << num(H - 16) << "\" text-anchor=\"middle\">"
        << xml_escape(options.x_label) << "</text>\n";
  if (!options.y_label.empty())
    out << "<text transform=\"translate(16," << num(top + ph / 2) << ") rotate(-90)\" text-anchor=\"middle\">"
        << xml_escape(options.y_label + (log_y ? " (log scale)" : "")) << "</text>\n";
  if (no_data)
    out << "<text x=\"" << num(left + pw / 2) << "\" y=\"" << num(top + ph / 2) << "\" text-anchor=\"middle\" fill=\"#888\">no data</text>\n";

  // Curves: one polyline per unbroken run of usable points.
  for (std::size_t k = 0; k < series.size(); ++k) {
    const auto& s = series[k];
    const char* colour = kColours[k % std::size(kColours)];
    out << "<g class=\"series\" fill=\"none\" stroke=\"" << colour << "\" stroke-width=\"1.8\" stroke-linejoin=\"round\">\n";
    std::string points;
    std::size_t count = 0;
    auto flush = [&] {
      if (count == 1) {  // a lone point would be invisible as a polyline
        out << "<circle cx=\"" << points.substr(0, points.find(',')) << "\" cy=\"" << points.substr(points.find(',') + 1)
            << "\" r=\"2\" fill=\"" << colour << "\"/>\n";
      } else if (count > 1) {
        out << "<polyline points=\"" << points << "\"/>\n";
      }
      points.clear();
      count = 0;
    };
    for (std::size_t i = 0; i < s.y.size(); ++i) {
      const double x = s.x.empty() ? static_cast<double>(i) : (i < s.x.size() ? s.x[i] : NAN);
      if (!usable(x, s.y[i])) {
        flush();
        continue;
      }
      if (count) points += ' ';
      points += num(px(x)) + "," + num(py(y_value(s.y[i])));
      ++count;
    }
    flush();
    out << "</g>\n";
  }

  if (series.size() > 1) {
    out << "<g class=\"legend\">\n";
    double ly = top + 14;
    for (std::size_t k = 0; k < series.size(); ++k, ly += 18) {
      const char* colour = kColours[k % std::size(kColours)];
      out << "<line x1=\"" << num(left + pw - 150) << "\" y1=\"" << num(ly - 4) << "\" x2=\"" << num(left + pw - 126)
          << "\" y2=\"" << num(ly - 4) << "\" stroke=\"" << colour << "\" stroke-width=\"2\"/><text x=\""
          << num(left + pw - 120) << "\" y=\"" << num(ly) << "\">" << xml_escape(series[k].label) << "</text>\n";
    }
    out << "</g>\n";
  }
  out << "</svg>\n";
  return out.str();
}

}  // namespace pz::util

#include "util/svg_plot.h"

#include <gtest/gtest.h>

#include <cmath>

namespace pz::util {
namespace {

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (auto pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + what.size())) ++n;
  return n;
}

TEST(NiceTicks, CoverTheRangeWithRoundSteps) {
  EXPECT_EQ(nice_ticks(0, 100, 5), (std::vector<double>{0, 20, 40, 60, 80, 100}));
  EXPECT_EQ(nice_ticks(0, 1000, 8), (std::vector<double>{0, 200, 400, 600, 800, 1000}));  // 125 rounds up to 200
  const auto t = nice_ticks(0.013, 0.1, 6);  // step 0.02, from 0 to 0.1
  ASSERT_EQ(t.size(), 6u);
  EXPECT_DOUBLE_EQ(t.front(), 0.0);
  EXPECT_NEAR(t.back(), 0.1, 1e-15);
  EXPECT_NEAR(t[1] - t[0], 0.02, 1e-15);
}

TEST(NiceTicks, NegativeAndDegenerateRanges) {
  EXPECT_EQ(nice_ticks(-1, 1, 4), (std::vector<double>{-1, -0.5, 0, 0.5, 1}));
  EXPECT_EQ(nice_ticks(3, 3), (std::vector<double>{3}));
  EXPECT_TRUE(nice_ticks(NAN, 1).empty());
  for (double v : nice_ticks(-0.3, 0.3, 6)) EXPECT_FALSE(std::signbit(v) && v == 0) << "no negative zero";
}

TEST(FormatTick, AsManyDigitsAsTheStepNeeds) {
  EXPECT_EQ(format_tick(0.25, 0.05), "0.25");
  EXPECT_EQ(format_tick(0.2, 0.05), "0.20");
  EXPECT_EQ(format_tick(1500, 500), "1500");
  EXPECT_EQ(format_tick(0, 0.1), "0");
  EXPECT_EQ(format_tick(2e-5, 1e-5), "2e-5");
  EXPECT_EQ(format_tick(3e7, 1e7), "3e7");
}

TEST(XmlEscape, EscapesMarkup) { EXPECT_EQ(xml_escape("a<b & \"c\">'"), "a&lt;b &amp; &quot;c&quot;&gt;&apos;"); }

TEST(SvgLinePlot, DrawsAxesTicksLabelsAndTheCurve) {
  PlotSeries s{"lr", {}, {}};
  for (int t = 0; t < 101; ++t) s.y.push_back(0.1 * (1 - t / 100.0));
  const std::string svg = svg_line_plot({s}, {"poly <decay>", "step", "learning rate", 640, 400, false});
  EXPECT_EQ(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"640\" height=\"400\"", 0), 0u);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  EXPECT_NE(svg.find("poly &lt;decay&gt;"), std::string::npos);
  EXPECT_NE(svg.find(">step</text>"), std::string::npos);
  EXPECT_NE(svg.find(">learning rate</text>"), std::string::npos);
  // The ends of both axes are labelled.
  EXPECT_NE(svg.find(">0</text>"), std::string::npos);
  EXPECT_NE(svg.find(">100</text>"), std::string::npos);
  EXPECT_NE(svg.find(">0.10</text>"), std::string::npos);
  EXPECT_EQ(count(svg, "<polyline"), 1);
  // 101 points in the polyline.
  const auto start = svg.find("<polyline points=\"");
  ASSERT_NE(start, std::string::npos);
  const auto begin = start + std::string("<polyline points=\"").size();
  EXPECT_EQ(count(svg.substr(begin, svg.find('"', begin) - begin), ","), 101);
  EXPECT_EQ(svg.find("legend"), std::string::npos) << "no legend for a single series";
}

TEST(SvgLinePlot, NonFiniteValuesBreakTheLine) {
  PlotSeries s{"y", {}, {1, 2, NAN, 3, 4, INFINITY, 5}};
  const std::string svg = svg_line_plot({s}, {});
  EXPECT_EQ(count(svg, "<polyline"), 2);
  EXPECT_EQ(count(svg, "<circle"), 1) << "the lone point after inf is a dot";
  EXPECT_EQ(svg.find("nan"), std::string::npos);
  EXPECT_EQ(svg.find("inf"), std::string::npos);
}

TEST(SvgLinePlot, ConstantSeriesAndEmptyInputStillMakeAPlot) {
  const std::string flat = svg_line_plot({{"c", {}, {0.5, 0.5, 0.5}}}, {});
  EXPECT_EQ(count(flat, "<polyline"), 1);
  EXPECT_NE(flat.find(">0.50</text>"), std::string::npos);
  const std::string empty = svg_line_plot({}, {"nothing", "x", "y", 300, 200, false});
  EXPECT_NE(empty.find("no data"), std::string::npos);
  EXPECT_NE(empty.find("</svg>"), std::string::npos);
}

TEST(SvgLinePlot, LogAxisUsesDecadesAndDropsNonPositive) {
  PlotSeries s{"exp", {}, {}};
  for (int t = 0; t < 50; ++t) s.y.push_back(std::pow(0.8, t));
  s.y.push_back(0.0);
  PlotOptions o;
  o.log_y = true;
  o.y_label = "lr";
  const std::string svg = svg_line_plot({s}, o);
  EXPECT_NE(svg.find(">1</text>"), std::string::npos);
  EXPECT_NE(svg.find(">0.1</text>"), std::string::npos);
  EXPECT_NE(svg.find(">1e-5</text>"), std::string::npos);
  EXPECT_NE(svg.find("lr (log scale)"), std::string::npos);
  EXPECT_EQ(count(svg, "<polyline"), 1);
}

TEST(SvgLinePlot, LegendForSeveralSeriesWithExplicitX) {
  PlotSeries a{"train <loss>", {0, 10, 20}, {3, 2, 1}};
  PlotSeries b{"test", {0, 10, 20}, {3.5, 2.5, 2}};
  const std::string svg = svg_line_plot({a, b}, {});
  EXPECT_NE(svg.find("class=\"legend\""), std::string::npos);
  EXPECT_NE(svg.find("train &lt;loss&gt;"), std::string::npos);
  EXPECT_EQ(count(svg, "<polyline"), 2);
  EXPECT_NE(svg.find(">20</text>"), std::string::npos);
}

}  // namespace
}  // namespace pz::util

// Line charts as standalone SVG text, for the simulator's self-contained HTML reports. No scripts, no
// external assets: the SVG can be inlined into a page or saved as a file.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace gangplank::simulator::report {

struct Series {
  std::string name;
  std::vector<double> x;  // Same length as y; points are drawn in the given order.
  std::vector<double> y;
  bool dashed = false;    // E.g. for reference lines such as published numbers.
};

struct LineChart {
  std::string title;
  std::string x_label;
  std::string y_label;
  std::vector<Series> series;
  // Axis ranges; taken from the data (with a small margin) when absent.
  std::optional<double> x_min, x_max, y_min, y_max;
  int width = 760;
  int height = 420;
};

// The chart as an <svg> element with axes, ticks, a legend and one polyline per series. Series with
// mismatched x/y lengths or no points are listed in the legend but not drawn.
std::string RenderLineChart(const LineChart& chart);

// Escapes &, <, >, " and ' for use in XML/HTML text and attribute values.
std::string EscapeXml(std::string_view text);

}  // namespace gangplank::simulator::report

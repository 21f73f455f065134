// What a Prometheus query answers, as plain values: an instant vector (one sample per series) from
// /api/v1/query and a matrix (points per series) from /api/v1/query_range. No I/O here.
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace gangplank::promql {

using Clock = std::chrono::system_clock;
// A series' label set, __name__ included when the query kept it.
using Labels = std::map<std::string, std::string>;

// One series' value at the evaluation time. Prometheus floats include NaN and +-Inf ("NaN", "+Inf",
// "-Inf" on the wire): they arrive here as the IEEE values, never as an error.
struct Sample {
  Labels labels;
  double value = 0;
  Clock::time_point timestamp;
};
using InstantVector = std::vector<Sample>;

struct Point {
  Clock::time_point timestamp;
  double value = 0;
};

struct Series {
  Labels labels;
  std::vector<Point> points;  // oldest first, as Prometheus sends them
};
using Matrix = std::vector<Series>;

}  // namespace gangplank::promql

// Reading Prometheus text exposition in tests: the sum of a metric's samples (all label sets).
#pragma once

#include <sstream>
#include <string>

namespace gangplank::testing {

// Sum over every sample of `name` in `text`, or -1 when the metric does not appear.
inline double SumOfMetric(const std::string& text, const std::string& name) {
  std::istringstream lines(text);
  double total = 0;
  bool found = false;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(name, 0) != 0) continue;
    const char next = line.size() > name.size() ? line[name.size()] : '\0';
    if (next != ' ' && next != '{') continue;  // Another metric whose name starts the same.
    total += std::stod(line.substr(line.rfind(' ') + 1));
    found = true;
  }
  return found ? total : -1;
}

}  // namespace gangplank::testing

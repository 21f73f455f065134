// Reading Prometheus text exposition in tests: the sum of a metric's samples (all label sets, or those
// carrying given labels).
#pragma once

#include <sstream>
#include <string>
#include <vector>

namespace gangplank::testing {

// Sum over every sample of `name` in `text` whose labels include each of `labels` (written as in the
// exposition: verb="bind"), or -1 when no such sample appears.
inline double SumOfMetric(const std::string& text, const std::string& name, const std::vector<std::string>& labels = {}) {
  std::istringstream lines(text);
  double total = 0;
  bool found = false;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(name, 0) != 0) continue;
    const char next = line.size() > name.size() ? line[name.size()] : '\0';
    if (next != ' ' && next != '{') continue;  // Another metric whose name starts the same.
    const std::string set = next == '{' ? line.substr(name.size(), line.find('}') - name.size() + 1) : "";
    bool match = true;
    for (const auto& label : labels) match = match && (set.find("{" + label) != std::string::npos || set.find("," + label) != std::string::npos);
    if (!match) continue;
    total += std::stod(line.substr(line.rfind(' ') + 1));
    found = true;
  }
  return found ? total : -1;
}

}  // namespace gangplank::testing

#include "tools/scheduler-driver/fit_error.h"

#include <algorithm>

namespace gangplank::scheduler_driver {

void FitDiagnosis::Add(const std::string& node, const std::vector<std::string>& reasons) {
  by_node_[node] = reasons;  // A node's status is the one of the stage that rejected it.
}

std::string FitDiagnosis::Message(std::size_t all_nodes) const {
  std::map<std::string, int> counts;
  for (const auto& [node, reasons] : by_node_) {
    for (const auto& reason : reasons) ++counts[reason];
  }
  std::vector<std::string> histogram;
  for (const auto& [reason, count] : counts) histogram.push_back(std::to_string(count) + " " + reason);
  std::sort(histogram.begin(), histogram.end());
  std::string message = "0/" + std::to_string(all_nodes) + " nodes are available:";
  if (histogram.empty()) return message;
  message += ' ';
  for (std::size_t i = 0; i < histogram.size(); ++i) message += (i ? ", " : "") + histogram[i];
  return message + ".";
}

}  // namespace gangplank::scheduler_driver

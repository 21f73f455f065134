// The text kube-scheduler writes into an unschedulable pod's PodScheduled condition and its
// FailedScheduling event: "0/<all nodes> nodes are available: <count> <reason>, ... ." — each node's
// reasons counted, the "<count> <reason>" strings sorted (framework FitError.Error()). Preemption is not
// tried, so no "preemption: ..." part follows.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace gangplank::scheduler_driver {

class FitDiagnosis {
 public:
  void Add(const std::string& node, const std::vector<std::string>& reasons);
  bool empty() const { return by_node_.empty(); }
  std::string Message(std::size_t all_nodes) const;

 private:
  std::map<std::string, std::vector<std::string>> by_node_;
};

}  // namespace gangplank::scheduler_driver

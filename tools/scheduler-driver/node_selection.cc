#include "tools/scheduler-driver/node_selection.h"

#include <stdexcept>

namespace gangplank::scheduler_driver {

std::map<std::string, std::int64_t> TotalScores(const std::vector<std::string>& feasible,
                                                const std::vector<HostPriority>& scores, std::int64_t weight) {
  std::map<std::string, std::int64_t> totals;
  for (const auto& node : feasible) totals[node] = 0;
  for (const auto& hp : scores) {
    auto it = totals.find(hp.host);
    if (it != totals.end()) it->second += hp.score * weight * 10;
  }
  return totals;
}

std::string SelectHost(const std::map<std::string, std::int64_t>& totals) {
  if (totals.empty()) throw std::invalid_argument("SelectHost: no feasible node");
  auto best = totals.begin();  // The map is ordered by name: the first of equal totals is the lowest name.
  for (auto it = totals.begin(); it != totals.end(); ++it) {
    if (it->second > best->second) best = it;
  }
  return best->first;
}

}  // namespace gangplank::scheduler_driver

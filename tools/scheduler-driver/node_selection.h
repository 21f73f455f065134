// kube-scheduler's prioritizeNodes + selectHost with one extender and no in-tree score plugins: each
// feasible node's total is the extender's score × weight × 10 (MaxNodeScore / MaxExtenderPriority, no
// clamping; a node the extender did not score gets 0), and the highest total wins. kube-scheduler breaks
// ties at random; the driver takes the lowest node name, so tests are deterministic.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tools/scheduler-driver/extender_client.h"

namespace gangplank::scheduler_driver {

std::map<std::string, std::int64_t> TotalScores(const std::vector<std::string>& feasible,
                                                const std::vector<HostPriority>& scores, std::int64_t weight);

// The winner of non-empty `totals` (throws std::invalid_argument when empty).
std::string SelectHost(const std::map<std::string, std::int64_t>& totals);

}  // namespace gangplank::scheduler_driver

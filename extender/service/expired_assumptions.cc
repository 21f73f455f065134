#include "extender/service/expired_assumptions.h"

#include <spdlog/spdlog.h>

#include "logging/json_log.h"

namespace gangplank::extender {

void ReportExpiredAssumptions(const std::vector<cache::ExpiredAssumption>& expired, ExtenderMetrics& metrics) {
  for (const cache::ExpiredAssumption& e : expired) {
    spdlog::warn(logging::JsonFields("assumed binding expired: the pod informer never confirmed it", "pod", e.pod, "uid",
                                     e.uid, "node", e.node, "forgotten", e.informer_saw_pod ? "false" : "true"));
  }
  metrics.CountAssumeExpired(expired.size());
}

}  // namespace gangplank::extender

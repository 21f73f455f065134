// What the extender does when assumed bindings expire (cache::AssumeExpiry's callback): a warning log
// line per pod and the gangplank_extender_assumed_bindings_expired_total counter. A function of its
// own, not a lambda in main, so the line and the count are tested.
#pragma once

#include <vector>

#include "cache/state/cluster_state.h"
#include "extender/service/extender_metrics.h"

namespace gangplank::extender {

void ReportExpiredAssumptions(const std::vector<cache::ExpiredAssumption>& expired, ExtenderMetrics& metrics);

}  // namespace gangplank::extender

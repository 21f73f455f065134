#include "operator/model/pool_admission_config.h"

#include <algorithm>
#include <limits>

namespace gangplank::op {
namespace {

// 0 in the spec means "never".
double SecondsOrNever(int seconds) { return seconds > 0 ? seconds : std::numeric_limits<double>::infinity(); }

}  // namespace

engine::AdmissionConfig AdmissionConfigFor(const cache::PoolConfig& pool) {
  engine::AdmissionConfig c;
  c.reservation.reserve_after_seconds = SecondsOrNever(pool.admission.reserve_after_seconds);
  c.start_timeout_seconds = SecondsOrNever(pool.admission.start_timeout_seconds);
  engine::ReclaimConfig& r = c.reclaim;
  r.enabled = pool.preemption.reclaim;
  r.min_wait_seconds = pool.preemption.min_wait_seconds;
  r.min_runtime_seconds = pool.preemption.min_runtime_seconds;
  r.max_lost_gpu_seconds = pool.preemption.max_lost_gpu_hours * 3600;
  r.window_seconds = 3600;
  r.max_victims_per_window = pool.preemption.max_gangs_per_hour;
  r.max_victims_per_round = std::min(4, pool.preemption.max_gangs_per_hour);
  const cache::PoolConsolidation& pc = pool.preemption.consolidation;
  c.consolidation.enabled = pc.enabled;
  c.consolidation.max_gpus = pc.max_gpus;
  c.consolidation.max_lost_gpu_seconds = pc.max_lost_gpu_hours * 3600;
  return c;
}

}  // namespace gangplank::op

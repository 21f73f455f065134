// The GPU-seconds one pool's queues held, kept between rounds (utilization/usage_accounting.h): a ledger
// over the pool's usage window (engine/fairshare/usage_ledger.h) that gives each Queue's used GPU-hours
// and, when the pool opts in to fair share over time, the decayed past usage its round counts.
#pragma once

#include "cache/crd/pool_config.h"
#include "engine/fairshare/usage_ledger.h"

namespace gangplank::op {

// A pool's spec.fairShare as the engine's ledger takes it.
inline engine::UsageDecayConfig UsageDecayFor(const cache::PoolConfig& pool) {
  engine::UsageDecayConfig c;
  c.half_life_seconds = pool.fair_share.usage_half_life_seconds;
  c.window_seconds = pool.fair_share.usage_window_seconds;
  c.weight = pool.fair_share.usage_weight;
  return c;
}

struct UsageBook {
  engine::UsageLedger ledger;
  double counted_at = 0;  // GPU-seconds are counted up to here (0: not yet).
};

}  // namespace gangplank::op

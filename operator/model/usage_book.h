// The GPU-seconds one pool's queues held, kept between rounds (utilization/usage_accounting.h): a ledger
// over the pool's usage window (engine/fairshare/usage_ledger.h) that gives each Queue's used GPU-hours
// and, when the pool opts in to fair share over time, the decayed past usage its round counts.
#pragma once

#include <nlohmann/json.hpp>

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

// The ledger's buckets are written to the GPUPool's status.usage this often at most (a leader that
// stops loses at most this much of the pool's history).
inline constexpr double kUsageStatusSeconds = 300;

// GPU-seconds are counted at most this often, unless a new utilization read arrived: a reconcile per pod
// event must not walk every running gang (the poller's pace bounds how stale the counters get).
inline constexpr double kUsageCountSeconds = 15;

struct UsageBook {
  engine::UsageLedger ledger;
  double counted_at = 0;       // GPU-seconds are counted up to here (0: not yet).
  double read_at = 0;          // The utilization read last counted with.
  double status_at = -1e300;   // When `status` was last taken from the ledger.
  nlohmann::json status;       // status.usage as last taken.
};

// The ledger as the GPUPool's status.usage: {bucketSeconds, queues: [{name, starts, gpuSeconds}]}.
nlohmann::json UsageStatus(const engine::UsageLedger& ledger);
// Puts back into `ledger` what UsageStatus wrote, when its buckets are as wide as the ledger's (a pool
// whose window changed starts afresh). Malformed entries are skipped.
void RestoreUsage(engine::UsageLedger& ledger, const nlohmann::json& status);

}  // namespace gangplank::op

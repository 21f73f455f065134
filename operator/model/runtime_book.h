// A pool's runtime prediction, kept between rounds (spec.admission.runtimePrediction): the predictor
// fed with the runtimes of the pool's gangs that ended (engine/prediction/runtime_predictor.h), each
// gang's key, and the gangs backfilled onto reserved nodes on a prediction with when they must be gone.
// The predictor's windows and the backfills are the GPUPool's status.runtimes and status.backfills, so a
// new leader predicts as the last one did and still ends a backfill that overstays.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "cache/crd/pool_config.h"
#include "engine/prediction/runtime_predictor.h"

namespace gangplank::op {

struct Gang;

// The status keeps at most this many keys (the most recently fed), each its window of runtimes.
inline constexpr std::size_t kRuntimeStatusKeys = 256;

struct PredictedBackfill {
  double leave_by = 0;             // Seconds since the epoch.
  bool overran = false;            // Ended for overstaying: never backfilled on a prediction again.
  double checkpoint_deadline = 0;  // Asked to checkpoint by then before it is ended (0: not asked yet).
};

struct RuntimeBook {
  std::optional<engine::RuntimePredictor> predictor;  // Set while the pool predicts.
  double quantile = 0.9;                              // What backfill trusts (backfillQuantile).
  bool learnt = false;                                // Fed since the waiting gangs were last predicted.
  std::unordered_map<std::string, engine::KeyChain> chains;  // By gang key.
  std::map<std::string, PredictedBackfill> backfills;         // By gang key.
  double status_at = -1e300;  // When `status` was last taken from the predictor.
  nlohmann::json status;      // status.runtimes as last taken.

  // Makes the predictor when the pool's setting enables it (a changed setting makes a new pool model).
  void Configure(const cache::PoolRuntimePrediction& setting);
  // The gang's chain of keys (RuntimeKeyOf), made once per gang key.
  const engine::KeyChain& ChainOf(const Gang& gang, const std::string& queue, double gpus);
  void Forget(const std::string& gang_key);
};

// The gang's key: its queue, namespace, GPUs, and job class (gangplank.io/job-class on its first member,
// else the stem of its owner's name: "bert-ft-20261129-x7k2p" -> "bert-ft").
engine::RuntimeKey RuntimeKeyOf(const Gang& gang, const std::string& queue, double gpus);
// A name without its trailing parts that carry digits (dates, counters, generated suffixes).
std::string NameStem(const std::string& name);

// status.runtimes: {keys: [{key, seconds: [...]}, ...]}, the most recently fed first.
nlohmann::json RuntimeStatus(const engine::RuntimePredictor& predictor);
void RestoreRuntimes(engine::RuntimePredictor& predictor, const nlohmann::json& status);
// status.backfills: [{gang, leaveBy, overran, checkpointBy (RFC 3339, once asked)}].
nlohmann::json BackfillStatus(const std::map<std::string, PredictedBackfill>& backfills);
std::map<std::string, PredictedBackfill> RestoreBackfills(const nlohmann::json& status);

}  // namespace gangplank::op

// The FGD paper's "fragmentation replay" (Weng et al., ATC '23, openb): per seed, shuffle the pods, top
// the list up by resampling until the requested GPUs reach `target_ratio` of the cluster's GPU capacity,
// place the pods one by one with no departures and no retries, and after every pod record the arrived
// workload (cumulative requested GPU milli / capacity) and the GPU allocation ratio.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/node.h"
#include "engine/request.h"
#include "engine/scoring_policy.h"
#include "simulator/frag/node_order_placement.h"

namespace gangplank::simulator::frag {

struct CurvePoint {
  double arrived_percent = 0;
  double allocated_percent = 0;
};

struct FragReplayResult {
  std::string policy;
  std::uint64_t seed = 0;
  std::vector<CurvePoint> curve;  // One point per arriving pod, in arrival order.
  int pods_arrived = 0;
  int pods_failed = 0;
  std::int64_t capacity_gpu_milli = 0;
};

enum class ArrivalMode {
  // A seeded shuffle of the pods, then seeded resampling (with replacement) until the cumulative GPU
  // request reaches target_ratio * capacity.
  kShuffled,
  // What the paper's simulator does with its default settings: the resampled pods (which carry no
  // creation time there and so sort first) arrive before the original pods, which keep trace order.
  kTraceOrder,
};

// The arrival order for one seed; indices into `pods`.
std::vector<size_t> ArrivalOrder(const std::vector<engine::PodRequest>& pods, std::int64_t capacity_gpu_milli,
                                 double target_ratio, std::uint64_t seed,
                                 ArrivalMode mode = ArrivalMode::kShuffled);

// One replay. `workload` is what fragmentation-aware policies learn the typical tasks from (the trace's
// pod list). `ties` says how equal best scores are broken; the default is the paper's simulator's rule
// (node_order_placement.h). Throws std::invalid_argument for an unknown policy or an empty GPU cluster.
FragReplayResult RunFragReplay(const std::vector<engine::NodeSpec>& nodes,
                               const std::vector<engine::PodRequest>& pods, const std::string& policy,
                               std::uint64_t seed, double target_ratio = 1.3,
                               ArrivalMode mode = ArrivalMode::kShuffled, TieBreak ties = TieBreak::kNodeOrder);

// The same with a policy the caller made (e.g. a variant under study); `policy` must be fresh.
FragReplayResult RunFragReplay(const std::vector<engine::NodeSpec>& nodes,
                               const std::vector<engine::PodRequest>& pods, engine::ScoringPolicy& policy,
                               std::uint64_t seed, double target_ratio = 1.3,
                               ArrivalMode mode = ArrivalMode::kShuffled, TieBreak ties = TieBreak::kNodeOrder);

// Allocation (%) when the arrived workload first reaches `arrived_percent`, linearly interpolated between
// the two points around it; the last allocation if the curve never gets there.
double AllocationAt(const std::vector<CurvePoint>& curve, double arrived_percent);

// Points at every `step` percent of arrived workload (the last point at or after each step), plus the
// final point: enough for plots and CSVs without one row per pod.
std::vector<CurvePoint> Downsample(const std::vector<CurvePoint>& curve, double step);

}  // namespace gangplank::simulator::frag

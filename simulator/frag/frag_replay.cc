#include "simulator/frag/frag_replay.h"

#include <algorithm>
#include <stdexcept>

#include "engine/cluster.h"
#include "engine/place_pod.h"
#include "engine/policies/registry.h"
#include "engine/random.h"

namespace gangplank::simulator::frag {

std::vector<size_t> ArrivalOrder(const std::vector<engine::PodRequest>& pods, std::int64_t capacity_gpu_milli,
                                 double target_ratio, std::uint64_t seed, ArrivalMode mode) {
  std::vector<size_t> order(pods.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  if (pods.empty()) return order;
  engine::Rng rng(seed);
  if (mode == ArrivalMode::kShuffled) {
    for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng.Below(i)]);  // Fisher-Yates.
  }
  const size_t original = order.size();
  std::int64_t requested = 0;
  bool any_gpu = false;
  for (const auto& p : pods) {
    requested += p.TotalGpuMilli();
    any_gpu = any_gpu || p.TotalGpuMilli() > 0;
  }
  const auto target = static_cast<double>(capacity_gpu_milli) * target_ratio;
  while (any_gpu && static_cast<double>(requested) < target) {
    const size_t pick = rng.Below(pods.size());
    order.push_back(pick);
    requested += pods[pick].TotalGpuMilli();
  }
  if (mode == ArrivalMode::kTraceOrder) {
    std::rotate(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(original), order.end());
  }
  return order;
}

FragReplayResult RunFragReplay(const std::vector<engine::NodeSpec>& nodes,
                               const std::vector<engine::PodRequest>& pods, const std::string& policy_name,
                               std::uint64_t seed, double target_ratio, ArrivalMode mode, TieBreak ties) {
  auto policy = engine::policies::MakePolicy(policy_name, pods, seed ^ 0x2545f4914f6cdd1dULL);
  FragReplayResult result = RunFragReplay(nodes, pods, *policy, seed, target_ratio, mode, ties);
  result.policy = policy_name;
  return result;
}

FragReplayResult RunFragReplay(const std::vector<engine::NodeSpec>& nodes,
                               const std::vector<engine::PodRequest>& pods, engine::ScoringPolicy& policy,
                               std::uint64_t seed, double target_ratio, ArrivalMode mode, TieBreak ties) {
  engine::Cluster cluster;
  for (const auto& n : nodes) cluster.AddNode(n);
  if (cluster.total_gpu_milli() <= 0) throw std::invalid_argument("fragmentation replay: the cluster has no GPUs");

  FragReplayResult result;
  result.policy = std::string(policy.Name());
  result.seed = seed;
  result.capacity_gpu_milli = cluster.total_gpu_milli();
  const std::vector<size_t> order = ArrivalOrder(pods, cluster.total_gpu_milli(), target_ratio, seed, mode);
  // Ties come from their own stream (random draws, or the node order) so the arrival order is the same for
  // every policy and rule.
  const std::uint64_t tie_seed = seed ^ 0x5bd1e9955bd1e995ULL;
  engine::Rng tie_break(tie_seed);
  std::vector<std::uint32_t> ranks;
  if (ties == TieBreak::kNodeOrder) ranks = NodeTieRanks(cluster.size(), tie_seed);
  const auto capacity = static_cast<double>(cluster.total_gpu_milli());
  std::int64_t arrived = 0;
  result.curve.reserve(order.size());
  for (size_t index : order) {
    const engine::PodRequest& pod = pods[index];
    arrived += pod.TotalGpuMilli();
    auto allocation = ties == TieBreak::kNodeOrder ? PlaceWithNodeOrderTies(cluster, pod, policy, ranks)
                                                   : engine::PlacePod(cluster, pod, policy, tie_break);
    if (allocation) {
      cluster.Assign(*allocation);
      policy.OnAssigned(*allocation, pod);
    } else {
      ++result.pods_failed;
    }
    ++result.pods_arrived;
    result.curve.push_back(CurvePoint{100.0 * static_cast<double>(arrived) / capacity,
                                      100.0 * static_cast<double>(cluster.allocated_gpu_milli()) / capacity});
  }
  return result;
}

double AllocationAt(const std::vector<CurvePoint>& curve, double arrived_percent) {
  if (curve.empty()) return 0;
  for (size_t i = 0; i < curve.size(); ++i) {
    if (curve[i].arrived_percent < arrived_percent) continue;
    if (i == 0) return curve[0].allocated_percent;
    const CurvePoint& a = curve[i - 1];
    const CurvePoint& b = curve[i];
    const double span = b.arrived_percent - a.arrived_percent;
    if (span <= 0) return b.allocated_percent;
    const double f = (arrived_percent - a.arrived_percent) / span;
    return a.allocated_percent + f * (b.allocated_percent - a.allocated_percent);
  }
  return curve.back().allocated_percent;
}

std::vector<CurvePoint> Downsample(const std::vector<CurvePoint>& curve, double step) {
  std::vector<CurvePoint> out;
  if (curve.empty()) return out;
  double next = 0;
  for (size_t i = 0; i < curve.size(); ++i) {
    if (curve[i].arrived_percent >= next) {
      out.push_back(curve[i]);
      while (next <= curve[i].arrived_percent) next += step;
    }
  }
  if (out.empty() || out.back().arrived_percent != curve.back().arrived_percent ||
      out.back().allocated_percent != curve.back().allocated_percent) {
    out.push_back(curve.back());
  }
  return out;
}

}  // namespace gangplank::simulator::frag

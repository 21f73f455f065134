#include "engine/place_pod.h"

namespace gangplank::engine {

namespace {

// The fast path: rank by FastScore, then ask for GPUs on the chosen node only. Same reservoir sampling as
// below, so a seed gives the same choice on both paths.
std::optional<Allocation> PlaceByFastScore(const Cluster& cluster, const PodRequest& request,
                                           ScoringPolicy& policy, Rng& rng) {
  NodeId best = kNoNode;
  double best_score = 0;
  std::uint64_t ties = 0;
  for (NodeId node = 0; node < cluster.size(); ++node) {
    if (!cluster.Fits(node, request)) continue;
    const double score = policy.FastScore(cluster, node, request);
    if (best == kNoNode || score > best_score) {
      best = node;
      best_score = score;
      ties = 1;
    } else if (score == best_score && rng.Below(++ties) == 0) {
      best = node;
    }
  }
  if (best == kNoNode) return std::nullopt;
  NodeScore s = policy.Score(cluster, best, request);
  if (request.WantsGpu() && static_cast<int>(s.gpus.size()) != request.gpu_count) return std::nullopt;
  return MakeAllocation(best, request, std::move(s.gpus));
}

}  // namespace

std::optional<Allocation> PlacePod(const Cluster& cluster, const PodRequest& request, ScoringPolicy& policy,
                                   Rng& rng) {
  if (policy.HasFastScore()) return PlaceByFastScore(cluster, request, policy, rng);
  std::optional<Allocation> best;
  double best_score = 0;
  std::uint64_t ties = 0;
  for (NodeId node = 0; node < cluster.size(); ++node) {
    if (!cluster.Fits(node, request)) continue;
    NodeScore s = policy.Score(cluster, node, request);
    if (request.WantsGpu() && static_cast<int>(s.gpus.size()) != request.gpu_count) continue;
    if (!best || s.score > best_score) {
      best = MakeAllocation(node, request, std::move(s.gpus));
      best_score = s.score;
      ties = 1;
    } else if (s.score == best_score && rng.Below(++ties) == 0) {
      best = MakeAllocation(node, request, std::move(s.gpus));  // Reservoir sampling over equal scores.
    }
  }
  return best;
}

}  // namespace gangplank::engine

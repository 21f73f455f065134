#include "engine/place_pod.h"

namespace gangplank::engine {

std::optional<Allocation> PlacePod(const Cluster& cluster, const PodRequest& request, ScoringPolicy& policy,
                                   Rng& rng) {
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

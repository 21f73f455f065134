#include "simulator/frag/node_order_placement.h"

#include <numeric>
#include <stdexcept>
#include <utility>

#include "engine/random.h"

namespace gangplank::simulator::frag {

std::vector<std::uint32_t> NodeTieRanks(int nodes, std::uint64_t seed) {
  if (nodes < 0) throw std::invalid_argument("NodeTieRanks: negative node count");
  std::vector<std::uint32_t> ranks(static_cast<size_t>(nodes));
  std::iota(ranks.begin(), ranks.end(), 0U);
  engine::Rng rng(seed);
  for (size_t i = ranks.size(); i > 1; --i) std::swap(ranks[i - 1], ranks[rng.Below(i)]);  // Fisher-Yates.
  return ranks;
}

std::optional<engine::Allocation> PlaceWithNodeOrderTies(const engine::Cluster& cluster,
                                                         const engine::PodRequest& request,
                                                         engine::ScoringPolicy& policy,
                                                         const std::vector<std::uint32_t>& ranks) {
  if (ranks.size() != static_cast<size_t>(cluster.size())) {
    throw std::invalid_argument("PlaceWithNodeOrderTies: one rank per node needed");
  }
  const bool fast = policy.HasFastScore();
  engine::NodeId best = engine::kNoNode;
  double best_score = 0;
  std::vector<int> best_gpus;
  for (engine::NodeId node = 0; node < cluster.size(); ++node) {
    if (!cluster.Fits(node, request)) continue;
    double score = 0;
    std::vector<int> gpus;
    if (fast) {
      score = policy.FastScore(cluster, node, request);
    } else {
      engine::NodeScore s = policy.Score(cluster, node, request);
      if (request.WantsGpu() && static_cast<int>(s.gpus.size()) != request.gpu_count) continue;
      score = s.score;
      gpus = std::move(s.gpus);
    }
    const size_t i = static_cast<size_t>(node);
    if (best == engine::kNoNode || score > best_score ||
        (score == best_score && ranks[i] < ranks[static_cast<size_t>(best)])) {
      best = node;
      best_score = score;
      best_gpus = std::move(gpus);
    }
  }
  if (best == engine::kNoNode) return std::nullopt;
  if (fast) {
    engine::NodeScore s = policy.Score(cluster, best, request);
    if (request.WantsGpu() && static_cast<int>(s.gpus.size()) != request.gpu_count) return std::nullopt;
    best_gpus = std::move(s.gpus);
  }
  return engine::MakeAllocation(best, request, std::move(best_gpus));
}

}  // namespace gangplank::simulator::frag

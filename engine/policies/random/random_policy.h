// Random, as the FGD paper's baseline: every fitting node scores the same, so PlacePod's seeded tie-break
// picks one uniformly; a sharing pod then takes a uniformly random GPU with room on that node (the paper's
// simulator pairs Random with random GPU selection).
#pragma once

#include <cstdint>

#include "engine/random.h"
#include "engine/scoring_policy.h"

namespace gangplank::engine::policies {

class RandomPolicy final : public ScoringPolicy {
 public:
  explicit RandomPolicy(std::uint64_t seed = 0) : rng_(seed) {}
  std::string_view Name() const override { return "random"; }
  NodeScore Score(const Cluster& cluster, NodeId node, const PodRequest& request) override;
  bool HasFastScore() const override { return true; }
  double FastScore(const Cluster&, NodeId, const PodRequest&) override { return 0; }

 private:
  Rng rng_;
};

}  // namespace gangplank::engine::policies

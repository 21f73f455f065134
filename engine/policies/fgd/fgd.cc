#include "engine/policies/fgd/fgd.h"

#include <cmath>

#include "engine/policies/common/kube_score.h"

namespace gangplank::engine::policies {

double FgdScore(double decrease) {
  const double sigmoid = 1.0 / (1.0 + std::exp(-decrease / 1000.0));
  return TruncateScore(sigmoid * static_cast<double>(kMaxNodeScore));
}

std::unique_ptr<ScoringPolicy> MakeFgdPolicy(const std::vector<PodRequest>& workload) {
  return std::make_unique<FragmentationGradientPolicy>(
      "fgd", TypicalTasks(workload), MeasureOptions{},
      [](const GradientCandidate& c) { return FgdScore(c.decrease); });
}

}  // namespace gangplank::engine::policies

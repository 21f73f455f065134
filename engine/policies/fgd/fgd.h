// FGD, Fragmentation Gradient Descent (Weng et al., USENIX ATC '23): place a pod where the node's expected
// fragmentation against the typical workload grows least. As in the paper's simulator, the decrease
// (F_before - F_after, milli-GPU) becomes an integer kube-scheduler score trunc(100 * sigmoid(d / 1000)),
// the GPU of a sharing pod is the first one with the best such score; equal node scores are left to the
// caller's tie rule (the published 4.77% needs the paper's node-order rule, see kube_score.h). Typical tasks: pods weighted by count, 95% popularity coverage, CPU-only pods included.
#pragma once

#include <memory>
#include <vector>

#include "engine/policies/fragmentation/fragmentation_gradient.h"

namespace gangplank::engine::policies {

std::unique_ptr<ScoringPolicy> MakeFgdPolicy(const std::vector<PodRequest>& workload);

// The paper's score for a fragmentation decrease (milli-GPU).
double FgdScore(double decrease);

}  // namespace gangplank::engine::policies

#include "engine/policies/frag_pack/frag_pack.h"

#include <algorithm>
#include <cmath>

#include "engine/policies/best_fit/best_fit.h"
#include "engine/policies/fgd/fgd.h"
#include "engine/policies/frag_pack/node_kind_scarcity.h"

// What parts 1-3 are worth (parts 4 and 5, and all five on every workload shape: README.md beside this
// file): openb GPU nodes, mean unallocated GPU % at 100% arrived over seeds 42..51, measured before parts 4
// and 5 existed, with upstream random tie-breaking (`gangplank-sim fragmentation --ties random`). The replay's
// default is now the paper's simulator's tie rule (first node of a seeded random node order, see
// simulator/frag/node_order_placement.h), under which FGD gives 4.77 ± 0.12 (published 4.77 ± 0.11),
// fgd-bf 4.84 ± 0.07 and FragPack 4.25 ± 0.05: FragPack's own best-fit ties leave almost no exact ties, so
// the rule barely moves it, while FGD's integer score ties often and depends on the rule.
//   FGD score, random ties ......................................................... 9.9
//   exact gradient, random ties .................................................... 10.0
//   FGD score + BestFit ties ....................................................... 4.84
//   exact gradient + BestFit ties .................................................. 5.86
//   exact gradient + BestFit ties + CPU stranding (weight 0.5 / 1 / 2 / 4 / 16) ..... 4.24 / 4.22 / 4.28 / 4.25 / 4.26
//   FGD score + BestFit ties + CPU stranding (weight 4) ............................ 4.27
// Tried and not kept (no gain within the ~0.05 seed noise, or worse): sharing pods into partly used GPUs
// first (4.23 with stranding, 4.56 without), a capacity-aware measure counting how many copies of each task
// type CPU allows (4.62 without stranding, 4.24 with), memory in the fit test (+0.02..0.07), weighting
// typical tasks by GPU demand (5.0-5.5), keeping idle nodes for large pods (5.17), global best-fit GPU
// choice for sharing pods (4.76), additive fragmentation + BestFit mixes (4.64-5.5).
// Why stranding matters: at 100% arrived the unallocated share equals the failed GPU demand, which equals
// the free capacity left. Most of it is leftovers of shared GPUs that nothing can use (190 milli behind each
// 810-milli pod alone is ~3.3% of the cluster; an offline best-fit-decreasing packing of the sharing pods
// still wastes ~4.0%); the rest sat on nodes whose CPU was spent, which is what the stranding term avoids.

namespace gangplank::engine::policies {
namespace {

constexpr double kScorePerMilli = 1024.0;  // Above the fullness tie-break's range (0..1000).

// Lexicographic score from keys of decreasing weight, each bounded so the next cannot overturn it.
double Compose(bool opens_gpu, double fragmentation_key, double fullness) {
  constexpr double kOpenPenalty = 1e12;  // Far above any fragmentation key (|decrease| * 1024 < 1e11).
  return (opens_gpu ? -kOpenPenalty : 0.0) + fragmentation_key * kScorePerMilli + std::clamp(fullness, 0.0, 1000.0);
}

// The milli of dependent demand a placement may displace (node_kind_scarcity.h), in the fragmentation
// key's units. Added after the memo: it moves with every placement anywhere.
ClusterBias ScarcityCharge(const std::vector<PodRequest>& workload, const FragPackOptions& options) {
  if (options.scarcity_weight <= 0) return {};
  auto scarcity = std::make_shared<NodeKindScarcity>(workload, options.scarcity_by_node_shape);
  return [scarcity, weight = options.scarcity_weight](const Cluster& cluster, NodeId node, const PodRequest& request) {
    return -weight * scarcity->Charge(cluster, node, request) * kScorePerMilli;
  };
}

}  // namespace

std::unique_ptr<ScoringPolicy> MakeFragPackPolicy(const std::vector<PodRequest>& workload,
                                                  const FragPackOptions& options) {
  GradientRank rank = [options](const GradientCandidate& c) {
    const NodeState& state = c.state();
    const bool opens_gpu = options.shared_gpu_first && c.gpu >= 0 &&
                           state.gpu_free[static_cast<size_t>(c.gpu)] == kMilliPerGpu;
    // Whole milli-GPU, so floating-point noise never splits what is really a tie.
    const double key = options.exact_gradient ? std::round(c.decrease) : FgdScore(c.decrease);
    double fullness = 0;
    if (options.best_fit_tie_break) {
      fullness = BestFitFraction(state, c.request);  // 0..100, higher is fuller after placement.
      if (c.gpu >= 0) fullness += 1.0 - static_cast<double>(state.gpu_free[static_cast<size_t>(c.gpu)]) / kMilliPerGpu;
    }
    return Compose(opens_gpu, key, fullness);
  };
  const MeasureOptions measure{options.count_memory, options.cpu_stranding_weight, options.usable_share_only};
  return std::make_unique<FragmentationGradientPolicy>(options.name, TypicalTasks(workload, options.typical), measure,
                                                       std::move(rank), ScarcityCharge(workload, options));
}

}  // namespace gangplank::engine::policies

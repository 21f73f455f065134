// Workload shapes derived from an openb pod list by a documented, seeded procedure (data/README.md), for
// measuring policies beyond the default trace without shipping more CSVs:
//   - model-constrained:S  a seeded random share S of the GPU pods must run on one GPU model, drawn from
//                          the cluster's model mix (weighted by GPU count) among the models with a node
//                          that can hold the pod when empty;
//   - multi-gpu:S          a seeded random set of one-GPU pods is replaced by multi-GPU pods resampled
//                          from the list (with replacement) until multi-GPU pods are a share S of the GPU
//                          pods.
// CPU-only pods, and every pod not picked, stay as they are; the list keeps its length and order.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/node.h"
#include "engine/request.h"

namespace gangplank::simulator::openb {

struct DeriveSpec {
  enum class Kind { kNone, kModelConstrained, kMultiGpu };
  Kind kind = Kind::kNone;
  double share = 0;  // 0..1

  // "model-constrained:0.2", "multi-gpu:0.3"; "" or "none" is kNone. Throws std::invalid_argument.
  static DeriveSpec Parse(std::string_view text);
  std::string ToString() const;
};

std::vector<engine::PodRequest> ConstrainModels(const std::vector<engine::PodRequest>& pods,
                                                const std::vector<engine::NodeSpec>& nodes, double share,
                                                std::uint64_t seed);

// Throws std::invalid_argument when the list has no multi-GPU pod to resample from (and share > 0).
std::vector<engine::PodRequest> RaiseMultiGpuShare(const std::vector<engine::PodRequest>& pods, double share,
                                                   std::uint64_t seed);

std::vector<engine::PodRequest> DeriveWorkload(const std::vector<engine::PodRequest>& pods,
                                               const std::vector<engine::NodeSpec>& nodes, const DeriveSpec& spec,
                                               std::uint64_t seed);

}  // namespace gangplank::simulator::openb

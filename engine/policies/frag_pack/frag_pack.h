// FragPack, gangplank's own fragmentation-aware policy. It keeps FGD's objective (place each pod where the
// node's expected fragmentation against the typical workload grows least) and changes five things, each
// measured on the openb replay and on workload shapes derived from it (README.md beside this file):
//   1. GPUs the node's CPU can no longer feed count as fragment: with the typical GPU task needing r CPU
//      per GPU, free GPU capacity beyond cpu_free / r is stranded (FragmentationModel's
//      cpu_stranding_weight). FGD's measure only asks whether one more task fits, so it happily spends a
//      node's last CPU next to idle GPUs;
//   2. the exact fragmentation increase ranks nodes, not FGD's integer sigmoid score, which ties whole
//      ranges of increases and leaves them to the caller's tie rule;
//   3. equal increases go to the fuller node (BestFit), then the fuller GPU;
//   4. a free GPU counts as fragment only for the tasks that can use its model (usable_share_only). FGD's
//      measure counts it for every task that cannot, which makes rarely requested models look fragmented
//      whatever they hold and herds unconstrained pods onto them;
//   5. a pod pays, per GPU milli it takes, the pressure of the node's kind (GPU model x node shape): the
//      demand that only such nodes can hold over their share of the free GPUs (node_kind_scarcity.h). Pods
//      that could run elsewhere keep scarce models, and the few nodes big enough for the largest pods, for
//      the pods that need them.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/policies/fragmentation/fragmentation_gradient.h"

namespace gangplank::engine::policies {

struct FragPackOptions {
  std::string name = "fragpack";
  double cpu_stranding_weight = 1.0;  // 0 turns part 1 off.
  // Part 4: a task that cannot run on a node's GPU model adds no fragment there (node_fragmentation.h).
  bool usable_share_only = true;
  // Part 5: a placement costs this times its node kind's pressure (node_kind_scarcity.h) per GPU milli;
  // 0: off. Kinds are GPU model x node shape, or the GPU model alone without scarcity_by_node_shape.
  double scarcity_weight = 1.0;
  bool scarcity_by_node_shape = true;
  bool exact_gradient = true;
  bool best_fit_tie_break = true;
  // Sharing pods go into a partly used GPU whenever one fits anywhere (measured neutral; off).
  bool shared_gpu_first = false;
  bool count_memory = false;
  TypicalTaskOptions typical;
};

std::unique_ptr<ScoringPolicy> MakeFragPackPolicy(const std::vector<PodRequest>& workload,
                                                  const FragPackOptions& options = {});

}  // namespace gangplank::engine::policies

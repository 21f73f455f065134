// Why a waiting gang does not fit the cluster as it is, in words a user can act on. The most basic
// obstacle wins:
//  1. kNoEligibleNodes: no schedulable node is eligible for any member (GPU model, selector, taints);
//  2. kInsufficientGpus: it asks for more GPUs than the schedulable nodes have free;
//  3. kTopology: enough GPUs are free, but not in one domain of the level it requires (anywhere, when it
//     requires none), counting fully free GPUs on the nodes it may use; or they are, and its pods still
//     do not fit them (GPUs per node, CPU, memory).
// Figures are whole GPUs on schedulable (not cordoned, so not reserved) nodes. Per-node work is done
// once per set of member constraints, so explaining many similar gangs costs one pass over the nodes.
#pragma once

#include <deque>
#include <vector>

#include "engine/admission/admission_decision.h"
#include "engine/cluster.h"
#include "engine/gang/gang_request.h"
#include "engine/gang/largest_gang.h"

namespace gangplank::engine {

class UnfitExplainer {
 public:
  explicit UnfitExplainer(const Cluster& cluster) : cluster_(cluster) {}

  // Code and message (Blocked::waiting is left 0). `gpus` is what the gang asks for (GangGpus).
  Blocked Explain(const GangRequest& gang, double gpus);

 private:
  struct Usable {
    const PodRequest* like = nullptr;  // Members with these constraints share the entry...
    bool shared = false;               // ...when the gang's members all have them.
    int nodes = 0;
    std::vector<LargestGang> largest;  // Pool, then each level (LargestPlaceableGangs).
  };

  const Usable& UsableFor(const GangRequest& gang);
  double FreeGpus();

  const Cluster& cluster_;
  std::deque<Usable> usable_;  // A deque: references stay valid as entries are added.
  double free_gpus_ = -1;  // Lazily: free GPUs on schedulable nodes.
};

}  // namespace gangplank::engine

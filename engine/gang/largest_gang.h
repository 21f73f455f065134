// "Largest gang placeable now", reported per topology level for a pool's status.
//
// Definition: for a level, the largest number of whole GPUs that one gang of whole-GPU members could
// get inside a single domain of that level right now, i.e. the maximum over the level's domains of the
// fully free GPUs on its schedulable (not cordoned) nodes. Members may have any size up to a node's GPUs,
// so every fully free GPU of the domain is usable. `free_nodes` is the same maximum counted in fully free
// nodes: the largest gang of whole-node members. CPU, memory and per-gang eligibility (selectors,
// taints, GPU model) are not considered: the figure is an upper bound for any particular gang.
#pragma once

#include <string>
#include <vector>

#include "engine/cluster.h"

namespace gangplank::engine {

struct LargestGang {
  int level = -1;             // -1 for the whole pool.
  std::string level_key;      // "pool" for level -1.
  DomainId domain = kNoDomain;  // The domain achieving free_gpus (kNoDomain for the pool).
  int free_gpus = 0;
  int free_nodes = 0;         // Most fully free nodes in one domain of this level (may be another domain).
};

// One entry for the pool, then one per topology level from widest to narrowest.
std::vector<LargestGang> LargestPlaceableGangs(const Cluster& cluster);

// The same over the nodes marked in `usable` only (e.g. those one gang's selectors, tolerations and GPU
// model allow), which makes the figures exact for that gang's whole-GPU capacity. Cordoned nodes never
// count.
std::vector<LargestGang> LargestPlaceableGangs(const Cluster& cluster, const std::vector<char>& usable);

}  // namespace gangplank::engine

// A pool's fragmentation as one figure for its status: the share of its free GPU capacity that the
// pool's own typical tasks could not use (the FGD paper's F_n(M) summed over the schedulable nodes,
// divided by their free GPU milli). 0 when nothing is free or there is no workload to judge by.
#pragma once

#include <vector>

#include "engine/cluster.h"
#include "engine/request.h"

namespace gangplank::engine::policies {

double FragmentedShare(const Cluster& cluster, const std::vector<PodRequest>& workload);

}  // namespace gangplank::engine::policies

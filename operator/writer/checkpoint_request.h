// Asking a gang to checkpoint: gangplank.io/checkpoint-requested (the deadline, RFC 3339) on every member,
// which the job reads (downward API) and answers with gangplank.io/checkpoint-done on any member. Spot
// reclaim and fault recovery ask the same way.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "operator/writer/cluster_writer.h"

namespace gangplank::op {

// Annotates each pod (`assume` gets each pod as written); a pod that cannot be written is logged and
// skipped. Returns how many were asked.
int RequestCheckpoint(ClusterWriter& writer, const std::vector<cache::PodInfo>& members, const std::string& deadline,
                      const std::function<void(const cache::PodInfo&)>& assume);

}  // namespace gangplank::op

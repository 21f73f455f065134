// Asking a gang to checkpoint: gangplank.io/checkpoint-requested (the deadline, RFC 3339) and
// gangplank.io/checkpoint-cause (why) on every member, which the job reads (downward API) and answers
// with gangplank.io/checkpoint-done on any member. Spot reclaim, idle reclaim and fault recovery ask the
// same way; fault recovery takes its request back when the fault goes before the gang was restarted.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "operator/writer/cluster_writer.h"

namespace gangplank::op {

// Annotates each pod (`assume` gets each pod as written); a pod that cannot be written is logged and
// skipped. Returns how many were asked.
int RequestCheckpoint(ClusterWriter& writer, const std::vector<cache::PodInfo>& members, const std::string& deadline,
                      std::string_view cause, const std::function<void(const cache::PodInfo&)>& assume);

// Removes the request and its cause from each pod that carries them. Returns how many were written.
int WithdrawCheckpoint(ClusterWriter& writer, const std::vector<cache::PodInfo>& members,
                       const std::function<void(const cache::PodInfo&)>& assume);

}  // namespace gangplank::op

// The waiting gangs of an autoscaled pool a round found no room for, with the nodes each needs
// (engine/autoscaling/new_nodes.h): what CapacityRequests asks the autoscaler for. Only gangs blocked for
// want of GPUs, topology or eligible nodes are asked for; a queue's limit, a starving gang of its queue,
// a reservation or evicted gangs still leaving are obstacles new nodes would not remove, and are judged
// by the round before these.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "cache/crd/pool_config.h"
#include "engine/admission/admission_decision.h"
#include "engine/admission/admission_input.h"
#include "engine/cluster.h"
#include "operator/autoscaling/capacity_requests.h"

namespace gangplank::op {

std::vector<CapacityAsk> CapacityAsksOf(const cache::PoolConfig& pool, const engine::Cluster& cluster,
                                        const engine::AdmissionInput& input, const engine::AdmissionDecision& decision,
                                        const std::function<std::string(int waiting)>& key_of);

}  // namespace gangplank::op

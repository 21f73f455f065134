// What a person calls a topology level, for messages: the pool's level keys are node label keys, and
// "needs 8 GPUs in one NVLink domain" reads better than the key nvidia.com/gpu.clique.
#pragma once

#include <string>

namespace gangplank::engine {

// Well-known keys get their common name: nvidia.com/gpu.clique "NVLink domain",
// topology.kubernetes.io/zone "zone", topology.kubernetes.io/region "region", kubernetes.io/hostname
// "node", cloud.google.com/gce-topology-block "block", cloud.google.com/gce-topology-subblock
// "sub-block", network.topology.nvidia.com/* and topology.k8s.aws/network-node-layer-* "network domain
// (<key>)". "pool" (the whole pool, level -1 in the engine) stays "pool"; any other key is itself.
std::string LevelDisplayName(const std::string& label_key);

}  // namespace gangplank::engine

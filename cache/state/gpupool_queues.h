// Queue configuration from GPUPool custom resources (crds/gpupool.gangplank.io.yaml): spec.queues[]
// with name, guaranteedGPUs and limitGPUs.
#pragma once

#include <string>
#include <vector>

#include "cache/state/queue_config.h"

namespace gangplank::cache {

// The queues of one GPUPool object (its JSON). Throws DecodeError naming the bad field.
std::vector<QueueConfig> QueuesOfGpuPool(std::string json);

}  // namespace gangplank::cache

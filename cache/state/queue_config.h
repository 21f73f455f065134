// A team's queue as the extender enforces it: GPUs it may always keep (guaranteed) and at most hold
// (limit). Comes from the GPUPool custom resource's spec.queues (crds/gpupool.gangplank.io.yaml).
#pragma once

#include <optional>
#include <string>

namespace gangplank::cache {

struct QueueConfig {
  std::string name;
  int guaranteed_gpus = 0;
  std::optional<int> limit_gpus;  // No limit when empty.
};

}  // namespace gangplank::cache

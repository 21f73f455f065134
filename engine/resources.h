// Resource quantities the engine accounts for. GPUs are counted in milli-GPU so that GPU-sharing pods
// (a fraction of one GPU) and whole-GPU pods use one unit.
#pragma once

#include <cstdint>

namespace gangplank::engine {

using MilliGpu = std::int32_t;
inline constexpr MilliGpu kMilliPerGpu = 1000;

using NodeId = std::int32_t;
inline constexpr NodeId kNoNode = -1;

// CPU and memory, the two non-GPU dimensions every node and pod has.
struct HostResources {
  std::int64_t cpu_milli = 0;
  std::int64_t memory_mib = 0;

  friend bool operator==(const HostResources&, const HostResources&) = default;
};

}  // namespace gangplank::engine

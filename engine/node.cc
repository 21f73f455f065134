#include "engine/node.h"

#include <numeric>

namespace gangplank::engine {

int NodeState::FullyFreeGpus() const {
  int n = 0;
  for (MilliGpu free : gpu_free) n += free == kMilliPerGpu ? 1 : 0;
  return n;
}

MilliGpu NodeState::TotalFreeGpuMilli() const {
  return std::accumulate(gpu_free.begin(), gpu_free.end(), MilliGpu{0});
}

}  // namespace gangplank::engine

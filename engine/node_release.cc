#include "engine/node_release.h"

namespace gangplank::engine {

void ReleaseOnNode(NodeState& state, const Allocation& allocation) {
  state.free.cpu_milli += allocation.host.cpu_milli;
  state.free.memory_mib += allocation.host.memory_mib;
  for (int g : allocation.gpus) state.gpu_free[static_cast<size_t>(g)] += allocation.milli_per_gpu;
}

}  // namespace gangplank::engine

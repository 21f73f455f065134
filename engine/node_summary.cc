#include "engine/node_summary.h"

#include <algorithm>

namespace gangplank::engine {

NodeSummary Summarize(const NodeSpec& spec, const NodeState& state, const NodeSummary& ids) {
  NodeSummary s;
  s.name_hash = ids.name_hash;
  s.version = ids.version;
  s.model_id = ids.model_id;
  s.shape_id = ids.shape_id;
  s.free_cpu_milli = state.free.cpu_milli;
  s.free_memory_mib = state.free.memory_mib;
  for (MilliGpu free : state.gpu_free) {
    s.free_gpu_milli += free;
    s.fully_free_gpus += free == kMilliPerGpu ? 1 : 0;
    s.largest_free_share = std::max(s.largest_free_share, free);
  }
  s.gpu_count = spec.gpu_count;
  s.unschedulable = spec.unschedulable;
  s.blocking_taints = std::any_of(spec.taints.begin(), spec.taints.end(),
                                  [](const Taint& t) { return t.effect != "PreferNoSchedule"; });
  return s;
}

}  // namespace gangplank::engine

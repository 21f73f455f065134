#include "engine/policies/fragmentation/pool_fragmentation.h"

#include "engine/policies/fragmentation/node_fragmentation.h"
#include "engine/policies/fragmentation/typical_tasks.h"

namespace gangplank::engine::policies {

double FragmentedShare(const Cluster& cluster, const std::vector<PodRequest>& workload) {
  if (workload.empty()) return 0;
  FragmentationModel model(TypicalTasks(workload));  // The paper's measure: memory not counted.
  double fragment = 0, free = 0;
  for (NodeId n = 0; n < cluster.size(); ++n) {
    if (cluster.spec(n).unschedulable) continue;
    const NodeState& s = cluster.state(n);
    const double node_free = static_cast<double>(s.TotalFreeGpuMilli());
    if (node_free <= 0) continue;
    free += node_free;
    fragment += model.Cached(NodeView{s.free.cpu_milli, s.free.memory_mib, s.gpu_free, model.ModelIndex(cluster.spec(n).gpu_model)});
  }
  return free > 0 ? fragment / free : 0;
}

}  // namespace gangplank::engine::policies

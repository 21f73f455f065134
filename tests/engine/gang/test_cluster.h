// Helpers for gang planner tests: clusters with a zone/row/rack topology and a packing policy.
#pragma once

#include <string>

#include "engine/cluster.h"
#include "engine/gang/gang_request.h"
#include "engine/scoring_policy.h"
#include "tests/engine/least_free_policy.h"

namespace gangplank::engine::testing {

inline NodeSpec GpuNode(const std::string& name, int gpus, const std::string& zone, const std::string& row,
                        const std::string& rack) {
  NodeSpec spec;
  spec.name = name;
  spec.capacity = HostResources{64000, 512 * 1024};
  spec.gpu_count = gpus;
  spec.gpu_model = "A100";
  spec.labels = {{"zone", zone}, {"row", row}, {"rack", rack}};
  return spec;
}

// zones × rows_per_zone × racks_per_row × nodes_per_rack nodes of `gpus` GPUs, named z0-r1-k2-n3.
inline Cluster MakeCluster(int zones, int rows_per_zone, int racks_per_row, int nodes_per_rack, int gpus = 8) {
  Cluster cluster({"zone", "row", "rack"});
  for (int z = 0; z < zones; ++z)
    for (int r = 0; r < rows_per_zone; ++r)
      for (int k = 0; k < racks_per_row; ++k)
        for (int n = 0; n < nodes_per_rack; ++n) {
          const std::string zone = "z" + std::to_string(z);
          const std::string row = zone + "-r" + std::to_string(r);
          const std::string rack = row + "-k" + std::to_string(k);
          cluster.AddNode(GpuNode(rack + "-n" + std::to_string(n), gpus, zone, row, rack));
        }
  return cluster;
}

inline PodRequest WholeGpus(int gpus) {
  PodRequest r;
  r.host = HostResources{1000, 1024};
  r.gpu_count = gpus;
  r.gpu_milli = kMilliPerGpu;
  return r;
}

inline GangRequest UniformGang(const std::string& name, int pods, int gpus_per_pod) {
  GangRequest g;
  g.name = name;
  g.queue = "q";
  for (int i = 0; i < pods; ++i) g.members.push_back(WholeGpus(gpus_per_pod));
  return g;
}

// Occupies `gpus` whole GPUs on a node by name (test set-up).
inline void Occupy(Cluster& cluster, const std::string& node, int gpus) {
  const NodeId id = cluster.Find(node);
  PodRequest r = WholeGpus(gpus);
  r.host = HostResources{};
  cluster.Assign(MakeAllocation(id, r, DefaultGpuChoice(cluster.state(id), r)));
}

}  // namespace gangplank::engine::testing

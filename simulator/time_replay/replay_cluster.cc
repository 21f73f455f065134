#include "simulator/time_replay/replay_cluster.h"

namespace gangplank::simulator {

engine::Cluster BuildReplayCluster(const ClusterShape& shape) {
  engine::Cluster cluster(ReplayTopologyKeys());
  for (int i = 0; i < shape.nodes; ++i) {
    const int rack = i / shape.nodes_per_rack;
    const int row = rack / shape.racks_per_row;
    const int zone = row / shape.rows_per_zone;
    engine::NodeSpec spec;
    spec.name = "node-" + std::to_string(i);
    // CPU and memory never bind in this replay (the trace has neither); they are sized generously.
    spec.capacity = engine::HostResources{128000, 1024 * 1024};
    spec.gpu_count = shape.gpus_per_node;
    spec.gpu_model = "P100";
    spec.labels = {{ReplayTopologyKeys()[0], "zone-" + std::to_string(zone)},
                   {ReplayTopologyKeys()[1], "row-" + std::to_string(row)},
                   {ReplayTopologyKeys()[2], "rack-" + std::to_string(rack)},
                   {"kubernetes.io/hostname", spec.name}};
    cluster.AddNode(std::move(spec));
  }
  return cluster;
}

std::string DescribeShape(const ClusterShape& s) {
  const int racks = (s.nodes + s.nodes_per_rack - 1) / s.nodes_per_rack;
  const int rows = (racks + s.racks_per_row - 1) / s.racks_per_row;
  const int zones = (rows + s.rows_per_zone - 1) / s.rows_per_zone;
  return std::to_string(s.nodes) + " nodes x " + std::to_string(s.gpus_per_node) + " GPUs = " +
         std::to_string(s.nodes * s.gpus_per_node) + " GPUs; " + std::to_string(racks) + " racks of " +
         std::to_string(s.nodes_per_rack) + " nodes, " + std::to_string(rows) + " rows of " +
         std::to_string(s.racks_per_row) + " racks, " + std::to_string(zones) + " zones of " +
         std::to_string(s.rows_per_zone) + " rows (topology zone > row > rack)";
}

}  // namespace gangplank::simulator

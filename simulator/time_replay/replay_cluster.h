// The synthetic cluster of the time replay. The Philly trace has no node inventory beyond VC node
// counts, so the replay builds one: identical nodes of `gpus_per_node` GPUs, `nodes_per_rack` nodes per
// rack, `racks_per_row` racks per row and `rows_per_zone` rows per zone (the last rack, row and zone
// may be partial), labelled with the topology keys below, widest first.
#pragma once

#include <string>
#include <vector>

#include "engine/cluster.h"

namespace gangplank::simulator {

inline const std::vector<std::string>& ReplayTopologyKeys() {
  static const std::vector<std::string> keys = {"topology.kubernetes.io/zone", "gangplank.io/row", "gangplank.io/rack"};
  return keys;
}

struct ClusterShape {
  int nodes = 80;
  int gpus_per_node = 8;
  int nodes_per_rack = 8;
  int racks_per_row = 4;
  int rows_per_zone = 2;
};

engine::Cluster BuildReplayCluster(const ClusterShape& shape);

// One line for reports, e.g. "96 nodes x 8 GPUs = 768 GPUs; racks of 8 nodes, 4 racks per row, ...".
std::string DescribeShape(const ClusterShape& shape);

}  // namespace gangplank::simulator

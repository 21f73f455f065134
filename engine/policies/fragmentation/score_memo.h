// Remembers a policy's verdict per (request shape, node) until the node changes (Cluster::version).
// In a replay one placement changes one node, so nearly every node's verdict for a recurring request
// shape is still valid the next time that shape arrives.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "engine/cluster.h"

namespace gangplank::engine::policies {

class ScoreMemo {
 public:
  struct Entry {
    std::uint64_t version_plus_one = 0;  // 0: empty.
    double score = 0;
    int gpu = -1;  // The chosen GPU for a sharing request.
  };

  // The slot for `request`'s shape on `node`; Fresh() tells whether it still holds a valid verdict.
  Entry& Slot(const Cluster& cluster, NodeId node, const PodRequest& request);
  // Every node's slot for `request`'s shape, indexed by node id: the shape is matched once.
  std::vector<Entry>& Row(const Cluster& cluster, const PodRequest& request);
  static bool Fresh(const Entry& e, const Cluster& cluster, NodeId node) {
    return e.version_plus_one == cluster.version(node) + 1;
  }
  static void Fill(Entry& e, const Cluster& cluster, NodeId node, double score, int gpu) {
    e.version_plus_one = cluster.version(node) + 1;
    e.score = score;
    e.gpu = gpu;
  }

 private:
  using Shape = std::tuple<std::int64_t, std::int64_t, int, MilliGpu, std::vector<std::string>>;
  int ShapeId(const PodRequest& request);

  std::map<Shape, int> shapes_;
  Shape last_shape_;
  int last_id_ = -1;
  std::vector<std::vector<Entry>> entries_;  // [shape][node]
};

}  // namespace gangplank::engine::policies

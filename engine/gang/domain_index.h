// Per-domain aggregates of free whole GPUs over a chosen set of nodes (those a gang may use), so the
// planner can rule domains out with a few additions instead of trying to place the gang in each.
// Built in one pass over the nodes; kept current by Update while a plan is being tried.
#pragma once

#include <vector>

#include "engine/cluster.h"

namespace gangplank::engine {

class DomainIndex {
 public:
  // `counted[node]` says whether a node is included (e.g. eligible for the gang and schedulable).
  DomainIndex(const Cluster& cluster, const std::vector<char>& counted);

  // kNoDomain stands for the whole pool (every counted node).
  int free_gpus(DomainId d) const { return free_[Slot(d)]; }
  int total_gpus(DomainId d) const { return total_[Slot(d)]; }
  int nodes(DomainId d) const { return nodes_[Slot(d)]; }
  // Nodes of the domain with exactly `free` fully free GPUs.
  int nodes_with_free(DomainId d, int free) const { return hist_[Slot(d) * width_ + free]; }
  bool fully_free(DomainId d) const { return nodes(d) > 0 && free_gpus(d) == total_gpus(d); }
  bool counted(NodeId node) const { return counted_[node] != 0; }
  int max_gpus_per_node() const { return width_ - 1; }

  // Pod slots of at least `size` GPUs the domain can offer: sum over nodes of floor(free / size).
  int SlotsFor(DomainId d, int size) const;
  // Whether the domain could hold pods of these whole-GPU sizes (sorted descending; 0 for pods without
  // whole GPUs). Necessary, not sufficient: it ignores CPU, memory and how sizes pack on one node.
  bool Holds(DomainId d, const std::vector<int>& sizes_desc) const;
  // The largest k such that the first k sizes pass Holds.
  int HoldsPrefix(DomainId d, const std::vector<int>& sizes_desc) const;

  // A counted node's fully free GPU count changed from `before` to `after`.
  void Update(NodeId node, int before, int after);

 private:
  size_t Slot(DomainId d) const { return static_cast<size_t>(d + 1); }
  void Add(NodeId node, int free, int delta);

  const Topology& topology_;
  std::vector<char> counted_;
  int width_ = 1;  // Max GPUs per node + 1: histogram buckets per domain.
  std::vector<int> free_, total_, nodes_, hist_;
};

}  // namespace gangplank::engine

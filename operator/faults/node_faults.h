// The nodes with a fault signal (cache/objects/node_fault.h) as the node informer reports them, each
// signal with the time it started: the object's own time where it has one, else when the operator first
// saw it (kept for as long as the signal stays on the node). Thread-safe like spot/node_notices.h: the
// informer's thread observes, reconcile workers take snapshots.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "cache/objects/kube_objects.h"
#include "cache/objects/node_fault.h"

namespace gangplank::op {

struct FaultyNode {
  std::vector<cache::NodeFaultSignal> signals;  // Each with `since` set.
  // GPUs a DRA device taint fences (NoSchedule, NoExecute): a fault of the gang holding one, not of the node.
  std::vector<cache::NodeDraGpus::Fenced> fenced;
};

using NodeFaultSnapshot = std::map<std::string, FaultyNode>;  // By node name.

class NodeFaults {
 public:
  // Reads the node's signals under its pool's `rules`; true when the node's faults changed.
  bool Observe(const cache::NodeInfo& node, const cache::NodeFaultRules& rules, double now);
  bool Remove(const std::string& node);  // The Node is gone; true if it had faults.
  std::shared_ptr<const NodeFaultSnapshot> Snapshot() const;

 private:
  mutable std::mutex mu_;
  std::shared_ptr<const NodeFaultSnapshot> faults_ = std::make_shared<const NodeFaultSnapshot>();
  std::map<std::string, std::map<std::string, double>> first_seen_;  // Node -> signal identity -> time.
};

}  // namespace gangplank::op

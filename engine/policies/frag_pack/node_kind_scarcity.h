// How much the free GPUs of one kind of node are needed by the pods that can run only on such nodes.
// FragPack charges a pod this pressure per GPU milli it takes there, so pods that could run elsewhere keep
// scarce GPU models, and the few nodes big enough for the largest pods, for the pods that need them.
//
// A kind is a GPU model, or with by_node_shape a GPU model with one node shape (GPU count, CPU, memory).
// From the workload: c_K, the share of all GPU demand (milli) that can run on kind K and not on every kind
// (the pod's allowed models or its size rule the others out), shared out over the kinds that can hold it
// in proportion to their GPUs. From the cluster now: f_K, K's share of the free GPU milli. If the rest of
// the workload arrives in the same mix, those pods will want about c_K / f_K of K's free capacity:
// pressure(K) = c_K / f_K. It is 0 for a kind no pod depends on, passes 1 when the pods that need the kind
// would fill it, and rises as other pods fill the kind, so they spread out before it runs dry. Pods that run
// anywhere add nothing, so a workload without constraints and without outsized pods ranks nothing.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/cluster.h"
#include "engine/request.h"

namespace gangplank::engine::policies {

class NodeKindScarcity {
 public:
  explicit NodeKindScarcity(const std::vector<PodRequest>& workload, bool by_node_shape = false);

  // Pressure of `node`'s kind now (>= 0); 0 for a node without GPUs.
  double Pressure(const Cluster& cluster, NodeId node);

 private:
  struct Kind {
    std::string model;
    int gpus = 0;  // With by_node_shape: the node's GPU count, CPU and memory; otherwise 0.
    std::int64_t cpu_milli = 0;
    std::int64_t memory_mib = 0;
    double capacity = 0;  // GPUs of all nodes of this kind.
  };
  struct Demand {
    std::int64_t cpu_milli = 0;  // With by_node_shape; otherwise 0.
    std::int64_t memory_mib = 0;
    int gpu_count = 0;
    std::vector<std::string> models;  // Allowed models, sorted; empty: any.
    double milli = 0;                 // Summed GPU milli of the pods of this shape.
  };
  int KindOf(const Cluster& cluster, NodeId node);
  bool Holds(const Kind& kind, const Demand& demand) const;
  void Measure(const Cluster& cluster);

  bool by_node_shape_;
  std::vector<Demand> demands_;
  double total_milli_ = 0;

  std::vector<Kind> kinds_;
  std::vector<int> node_kind_;  // Node -> kind index, -1 for a node without GPUs.
  std::vector<double> captive_share_;
  std::vector<double> pressure_;
  std::uint64_t measured_at_ = 0;  // Cluster::change_count() + 1 of the last Measure; 0: never.
};

}  // namespace gangplank::engine::policies

// How much of the capacity a placement takes was needed by pods that can run only on that kind of node.
// FragPack charges it, so pods that could run elsewhere keep scarce GPU models, and the few nodes big
// enough for the largest pods, for the pods that need them.
//
// A kind is a GPU model, or with by_node_shape a GPU model with one node shape (GPU count, CPU, memory).
// From the workload: c_K, the share of all GPU demand (milli) that can run on kind K and not on every kind
// (the pod's allowed models or its size rule the others out), shared out over the kinds that can hold it
// in proportion to their GPUs. From the cluster now: f_K, K's share of the free GPU milli. If the rest of
// the workload arrives in the same mix, those pods will want about c_K / f_K of K's free capacity: the
// pressure c_K / f_K is 0 for a kind no pod depends on, passes 1 when the pods that need the kind would
// fill it, and rises as other pods fill the kind, so they spread out before it runs dry.
//
// The charge is pressure times the dependent capacity the placement destroys: for pods of up to one GPU,
// the GPU milli it takes; for multi-GPU dependants of one shape, nothing on a node they no longer fit, the
// GPU milli taken if they still fit afterwards, and every whole free GPU of the node if they no longer do.
// Pods that run anywhere count nowhere, so in a workload without constraints or outsized pods nothing is
// charged.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/cluster.h"
#include "engine/request.h"

namespace gangplank::engine::policies {

class NodeKindScarcity {
 public:
  explicit NodeKindScarcity(const std::vector<PodRequest>& workload, bool by_node_shape = true);

  // Dependent demand `request` would displace on `node`, in GPU milli weighted by pressure (>= 0).
  double Charge(const Cluster& cluster, NodeId node, const PodRequest& request);

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
  struct BigDemand {  // Dependent multi-GPU pods of one shape.
    int gpu_count = 0;
    std::int64_t cpu_milli = 0;
    std::int64_t memory_mib = 0;
    double share = 0;

    bool Fits(int whole_gpus, std::int64_t cpu_free, std::int64_t memory_free) const {
      return whole_gpus >= gpu_count && cpu_free >= cpu_milli && memory_free >= memory_mib;
    }
  };
  static int WholeGpusTaken(const NodeState& state, const PodRequest& request);
  int KindOf(const Cluster& cluster, NodeId node);
  void AddShare(size_t kind, const Demand& demand, double share);
  bool Holds(const Kind& kind, const Demand& demand) const;
  void ClassifyNodes(const Cluster& cluster);  // Kinds, and the demand that depends on each.
  void Measure(const Cluster& cluster);        // Each kind's share of the free GPUs now, O(node shapes).

  bool by_node_shape_;
  std::vector<Demand> demands_;
  double total_milli_ = 0;

  std::vector<Kind> kinds_;
  std::vector<int> node_kind_;               // Node -> kind index, -1 for a node without GPUs.
  std::vector<int> shape_kind_;              // Cluster node shape -> kind index, -1 without GPUs.
  std::vector<double> small_share_;          // Per kind: dependent demand of pods of up to one GPU.
  std::vector<std::vector<BigDemand>> big_;  // Per kind: dependent multi-GPU demand by shape.
  std::vector<double> scale_;                // Per kind: total free / the kind's free, 0 when full.
  std::uint64_t measured_at_ = 0;            // Cluster::change_count() + 1 of the last Measure; 0: never.
};

}  // namespace gangplank::engine::policies

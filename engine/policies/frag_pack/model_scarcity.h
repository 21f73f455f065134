// How much a GPU model's free capacity is needed by the pods that can run on that model alone. FragPack
// charges a pod this pressure per GPU milli it takes, so pods that could run elsewhere keep scarce models
// for the pods that need them.
//
// From the workload: c_X, the share of all GPU demand (milli) that must land on model X (a pod allowed k
// of the cluster's models counts 1/k towards each). From the cluster now: f_X, X's share of the free GPU
// capacity. If the rest of the workload arrives in the same mix, captive pods will want c_X of what is
// still to come, about c_X / f_X of X's free capacity: pressure(X) = min(1, c_X / f_X), 0 for a model
// nothing needs exclusively, 1 once its captive demand alone would fill it, so a milli taken there
// displaces up to one milli of a pod that had no other choice. The pressure rises as other pods fill the
// model, so they spread out before it runs dry; equal pressures (no constraints, or constraints in the
// same proportion as the free capacity) rank nothing.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/cluster.h"
#include "engine/request.h"

namespace gangplank::engine::policies {

class ModelScarcity {
 public:
  explicit ModelScarcity(const std::vector<PodRequest>& workload);

  // Pressure of `node`'s GPU model now, 0..1; 0 for a node without GPUs.
  double Pressure(const Cluster& cluster, NodeId node);

 private:
  int ModelOf(const Cluster& cluster, NodeId node);
  void Measure(const Cluster& cluster);

  struct Demand {
    std::vector<std::string> models;  // Allowed models, sorted.
    double milli = 0;                 // Summed GPU milli of the pods allowed exactly these models.
  };
  std::vector<Demand> constrained_;
  double total_milli_ = 0;

  std::vector<std::string> models_;  // Index -> model name, in order of first sight.
  std::vector<int> node_model_;      // Node -> model index, -1 for a node without GPUs.
  std::vector<double> captive_share_;
  std::vector<double> pressure_;
  std::uint64_t measured_at_ = 0;    // Cluster::change_count() + 1 of the last Measure; 0: never.
};

}  // namespace gangplank::engine::policies

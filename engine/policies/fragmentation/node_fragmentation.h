// Expected GPU fragmentation of one node against a typical workload (the FGD paper's F_n(M)): for each
// task type m with frequency p_m, the free GPU milli on the node that m could not use, summed with
// weights p_m.
//   - m needs no GPU, or cannot run on the node at all (model, CPU, too few GPUs with room): every free
//     GPU milli counts;
//   - otherwise the free milli of GPUs that individually cannot hold m's per-GPU share counts.
// Memory is ignored unless `count_memory` (the paper's definition ignores it).
//
// Optionally (usable_share_only, gangplank's FragPack) a task that cannot run on the node's GPU model adds
// nothing instead of every free milli: a free GPU then counts as fragment only for the share of the
// workload that could use it. The paper's rule makes a node of a rarely requested model look heavily
// fragmented whatever it holds, so every placement there "removes" fragmentation and the measure herds
// unconstrained pods onto the scarce models that constrained pods need.
//
// Optionally (cpu_stranding_weight > 0, gangplank's FragPack) a node-level term adds the free GPU milli the
// node's free CPU cannot feed: with the typical GPU task needing r CPU milli per GPU milli, a node can use at
// most cpu_free / r of its free GPU milli; the rest counts as fragment, times the weight. The per-task terms
// above only ask whether ONE more task fits, so they miss GPUs that the CPU left behind can never reach.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/policies/fragmentation/typical_tasks.h"
#include "engine/resources.h"

namespace gangplank::engine::policies {

struct NodeView {
  std::int64_t cpu_free = 0;
  std::int64_t memory_free = 0;
  std::span<const MilliGpu> gpu_free;
  int model = 0;  // Index from FragmentationModel::ModelIndex.
};

struct MeasureOptions {
  bool count_memory = false;
  double cpu_stranding_weight = 0;
  bool usable_share_only = false;
};

class FragmentationModel {
 public:
  FragmentationModel(std::vector<TaskType> tasks, const MeasureOptions& options = {});

  const std::vector<TaskType>& tasks() const { return tasks_; }
  // A small integer per distinct GPU model name (stable for the model's lifetime).
  int ModelIndex(const std::string& gpu_model);

  // F_n(M) in milli-GPU, computed directly.
  double Compute(const NodeView& node) const;
  // The same through a cache keyed by the node's state up to GPU order: many nodes look alike.
  double Cached(const NodeView& node);

 private:
  struct Key {
    std::int64_t cpu = 0;
    std::int64_t memory = 0;
    std::uint64_t gpus = 0;  // Sorted free milli, 11 bits each (up to 5 GPUs) ... see Pack.
    std::uint64_t gpus_hi = 0;
    int model = 0;
    friend bool operator==(const Key&, const Key&) = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const;
  };
  static bool Pack(const NodeView& node, bool with_memory, Key& key);

  std::vector<TaskType> tasks_;
  MeasureOptions options_;
  double gpu_milli_per_cpu_milli_ = 0;  // Of the typical GPU task; 0 when there is none.
  std::vector<std::string> model_names_;
  std::vector<std::vector<char>> accessible_;  // [model][task]: the task may run on that model.
  std::unordered_map<Key, double, KeyHash> cache_;
};

}  // namespace gangplank::engine::policies

// A node as the engine sees it: static capacity and attributes. Free capacity lives in NodeState.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "engine/resources.h"

namespace gangplank::engine {

struct Taint {
  std::string key;
  std::string value;
  std::string effect;  // NoSchedule, PreferNoSchedule or NoExecute.
};

struct NodeSpec {
  std::string name;
  HostResources capacity;
  int gpu_count = 0;  // Whole physical GPUs, each of kMilliPerGpu.
  std::string gpu_model;
  std::map<std::string, std::string> labels;
  std::vector<Taint> taints;
  bool unschedulable = false;  // Cordoned.
};

// Free capacity of one node. Every GPU is tracked on its own so a k-GPU pod gets k distinct GPUs and a
// sharing pod a share of exactly one.
struct NodeState {
  HostResources free;
  std::vector<MilliGpu> gpu_free;  // One entry per GPU, 0..kMilliPerGpu.

  int FullyFreeGpus() const;
  MilliGpu TotalFreeGpuMilli() const;
};

}  // namespace gangplank::engine

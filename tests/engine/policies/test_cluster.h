// Small hand-built clusters and pods for the policy tests.
#pragma once

#include <string>
#include <vector>

#include "engine/cluster.h"

namespace gangplank::engine::policies::testing {

inline NodeSpec Node(const std::string& name, int gpus, std::int64_t cpu = 64000, std::int64_t mem = 262144,
                     const std::string& model = "V100") {
  NodeSpec n;
  n.name = name;
  n.capacity = {cpu, mem};
  n.gpu_count = gpus;
  n.gpu_model = model;
  return n;
}

inline PodRequest Pod(int gpus, MilliGpu milli, std::int64_t cpu = 4000, std::int64_t mem = 8192) {
  PodRequest p;
  p.host = {cpu, mem};
  p.gpu_count = gpus;
  p.gpu_milli = gpus > 0 ? milli : 0;
  return p;
}

// Applies `milli` on GPU `gpu` of `node` (and some CPU) directly, to set up a state.
inline void Use(Cluster& c, NodeId node, int gpu, MilliGpu milli, std::int64_t cpu = 1000) {
  Allocation a;
  a.node = node;
  a.host = {cpu, 1024};
  a.gpus = {gpu};
  a.milli_per_gpu = milli;
  c.Assign(a);
}

}  // namespace gangplank::engine::policies::testing

// The benchmark pool shared by the engine benchmarks: 5000 nodes of 8 GPUs with four topology levels
// (zone > block > rack > hostname) at realistic partial load (~70% of GPUs busy: a third of the nodes
// full, most others holding a random mix of 1/2/4-GPU pods, a few idle), seeded so every run and every
// benchmark sees the same state.
#pragma once

#include <string>
#include <vector>

#include "engine/cluster.h"
#include "engine/random.h"

namespace gangplank::engine::bench {

inline constexpr int kNodes = 5000;
inline constexpr int kNodesPerRack = 16;
inline constexpr int kRacksPerBlock = 8;
inline constexpr int kBlocksPerZone = 10;

inline PodRequest Gpus(int n) {
  PodRequest r;
  r.host = HostResources{4000L * n, 16384L * n};
  r.gpu_count = n;
  r.gpu_milli = kMilliPerGpu;
  return r;
}

// prefix + i, by append: "literal" + std::string trips a false -Wrestrict in GCC 12 when inlined.
inline std::string Label(const char* prefix, int i) {
  std::string s(prefix);
  s.append(std::to_string(i));
  return s;
}

// The loaded pool; when `placed` is given, every allocation made is appended to it (one per pod).
inline Cluster MakeLoadedPool(std::vector<Allocation>* placed = nullptr) {
  Cluster cluster({"zone", "block", "rack", "kubernetes.io/hostname"});
  Rng rng(42);
  auto assign = [&](NodeId id, const PodRequest& r) {
    const Allocation a = MakeAllocation(id, r, DefaultGpuChoice(cluster.state(id), r));
    cluster.Assign(a);
    if (placed != nullptr) placed->push_back(a);
  };
  for (int i = 0; i < kNodes; ++i) {
    const int rack = i / kNodesPerRack, block = rack / kRacksPerBlock, zone = block / kBlocksPerZone;
    NodeSpec spec;
    spec.name = Label("node-", i);
    spec.capacity = HostResources{96000, 1024 * 1024};
    spec.gpu_count = 8;
    spec.gpu_model = "H100";
    spec.labels = {{"zone", Label("z", zone)},
                   {"block", Label("b", block)},
                   {"rack", Label("r", rack)},
                   {"kubernetes.io/hostname", spec.name}};
    const NodeId id = cluster.AddNode(spec);
    const std::uint64_t kind = rng.Below(100);
    if (kind < 33) {
      assign(id, Gpus(8));
    } else if (kind < 90) {
      for (int tries = 0; tries < 6; ++tries) {
        const PodRequest r = Gpus(1 << rng.Below(3));
        if (cluster.Fits(id, r)) assign(id, r);
      }
    }
  }
  return cluster;
}

}  // namespace gangplank::engine::bench

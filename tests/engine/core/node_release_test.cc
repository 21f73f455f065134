#include "engine/node_release.h"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

namespace gangplank::engine {
namespace {

Allocation Held(HostResources host, std::vector<int> gpus, MilliGpu milli_per_gpu) {
  Allocation a;
  a.node = 0;
  a.host = host;
  a.gpus = std::move(gpus);
  a.milli_per_gpu = milli_per_gpu;
  return a;
}

// On a copy of a node's free capacity (what preempt works on), each allocation's CPU, memory and
// per-GPU shares come back exactly; Cluster::Release does the same to the cluster's books.
TEST(ReleaseOnNode, GivesBackCpuMemoryAndEachGpusShare) {
  NodeState state;
  state.free = {55000, 245760};
  state.gpu_free = {0, 0, 700, kMilliPerGpu};
  ReleaseOnNode(state, Held({1000, 8192}, {2}, 300));
  EXPECT_EQ(state.free, (HostResources{56000, 253952}));
  EXPECT_EQ(state.gpu_free, (std::vector<MilliGpu>{0, 0, kMilliPerGpu, kMilliPerGpu}));
  ReleaseOnNode(state, Held({8000, 8192}, {0, 1}, kMilliPerGpu));
  EXPECT_EQ(state.free, (HostResources{64000, 262144}));
  EXPECT_EQ(state.FullyFreeGpus(), 4);
  ReleaseOnNode(state, Held({0, 0}, {}, 0));  // A pod holding nothing gives nothing back.
  EXPECT_EQ(state.free, (HostResources{64000, 262144}));
}

}  // namespace
}  // namespace gangplank::engine

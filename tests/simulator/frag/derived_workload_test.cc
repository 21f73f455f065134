#include "simulator/openb/derived_workload.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

namespace gangplank::simulator::openb {
namespace {

using engine::NodeSpec;
using engine::PodRequest;
using ::testing::HasSubstr;

PodRequest Pod(int gpus, engine::MilliGpu milli, std::int64_t cpu = 4000) {
  PodRequest p;
  p.host.cpu_milli = cpu;
  p.host.memory_mib = 1024;
  p.gpu_count = gpus;
  p.gpu_milli = milli;
  return p;
}

NodeSpec Node(const std::string& name, int gpus, const std::string& model) {
  NodeSpec n;
  n.name = name;
  n.capacity.cpu_milli = 64000;
  n.capacity.memory_mib = 262144;
  n.gpu_count = gpus;
  n.gpu_model = model;
  return n;
}

// 1000 pods: 100 CPU-only, 500 sharing, 380 one whole GPU, 20 of eight GPUs.
std::vector<PodRequest> Workload() {
  std::vector<PodRequest> pods;
  for (int i = 0; i < 100; ++i) pods.push_back(Pod(0, 0));
  for (int i = 0; i < 500; ++i) pods.push_back(Pod(1, 250 + i % 500));
  for (int i = 0; i < 380; ++i) pods.push_back(Pod(1, 1000));
  for (int i = 0; i < 20; ++i) pods.push_back(Pod(8, 1000));
  return pods;
}

// 90 GPUs of the big model on 8-GPU nodes, 10 of the small one on 2-GPU nodes.
std::vector<NodeSpec> Cluster() {
  std::vector<NodeSpec> nodes;
  for (int i = 0; i < 5; ++i) nodes.push_back(Node("s" + std::to_string(i), 2, "Small"));
  for (int i = 0; i < 11; ++i) nodes.push_back(Node("b" + std::to_string(i), 8, "Big"));
  nodes.push_back(Node("b-last", 2, "Big"));
  return nodes;
}

int Count(const std::vector<PodRequest>& pods, auto pred) {
  return static_cast<int>(std::count_if(pods.begin(), pods.end(), pred));
}

TEST(DeriveSpec, ParsesEachShapeAndRejectsTheRest) {
  EXPECT_EQ(DeriveSpec::Parse("").kind, DeriveSpec::Kind::kNone);
  EXPECT_EQ(DeriveSpec::Parse("none").kind, DeriveSpec::Kind::kNone);
  const DeriveSpec m = DeriveSpec::Parse("model-constrained:0.25");
  EXPECT_EQ(m.kind, DeriveSpec::Kind::kModelConstrained);
  EXPECT_DOUBLE_EQ(m.share, 0.25);
  EXPECT_EQ(m.ToString(), "model-constrained:0.25");
  EXPECT_EQ(DeriveSpec::Parse("multi-gpu:0.5").kind, DeriveSpec::Kind::kMultiGpu);
  EXPECT_THROW(DeriveSpec::Parse("multi-gpu"), std::invalid_argument);
  EXPECT_THROW(DeriveSpec::Parse("multi-gpu:1.5"), std::invalid_argument);
  EXPECT_THROW(DeriveSpec::Parse("multi-gpu:-0.1"), std::invalid_argument);
  EXPECT_THROW(DeriveSpec::Parse("multi-gpu:0.2x"), std::invalid_argument);
  try {
    DeriveSpec::Parse("heavy:0.2");
    FAIL() << "accepted an unknown shape";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("unknown workload shape 'heavy:0.2'"));
  }
}

TEST(ConstrainModels, MarksTheShareOfGpuPodsWithModelsThatCanHoldThem) {
  const auto pods = Workload();
  const auto out = ConstrainModels(pods, Cluster(), 0.2, 7);
  ASSERT_EQ(out.size(), pods.size());
  EXPECT_EQ(Count(out, [](const PodRequest& p) { return !p.gpu_models.empty(); }), 180);  // 20% of 900.
  for (size_t i = 0; i < out.size(); ++i) {
    EXPECT_EQ(out[i].gpu_count, pods[i].gpu_count);
    EXPECT_EQ(out[i].gpu_milli, pods[i].gpu_milli);
    if (!pods[i].WantsGpu()) {
      EXPECT_TRUE(out[i].gpu_models.empty());
    }
    if (out[i].gpu_count == 8 && !out[i].gpu_models.empty()) {
      EXPECT_EQ(out[i].gpu_models[0], "Big");  // Only Big has nodes with eight GPUs.
    }
  }
}

TEST(ConstrainModels, DrawsModelsByTheirShareOfGpus) {
  const auto out = ConstrainModels(Workload(), Cluster(), 1.0, 3);
  const int small = Count(out, [](const PodRequest& p) { return p.gpu_models == std::vector<std::string>{"Small"}; });
  // One-GPU pods see Small as 10 of 100 GPUs (~88 of 880 expected); the eight-GPU pods never get it.
  EXPECT_GT(small, 55);
  EXPECT_LT(small, 125);
}

TEST(ConstrainModels, IsSeededAndLeavesShareZeroAlone) {
  const auto pods = Workload();
  auto models = [](const std::vector<PodRequest>& v) {
    std::vector<std::vector<std::string>> m;
    for (const auto& p : v) m.push_back(p.gpu_models);
    return m;
  };
  EXPECT_EQ(models(ConstrainModels(pods, Cluster(), 0.3, 11)), models(ConstrainModels(pods, Cluster(), 0.3, 11)));
  EXPECT_NE(models(ConstrainModels(pods, Cluster(), 0.3, 11)), models(ConstrainModels(pods, Cluster(), 0.3, 12)));
  EXPECT_EQ(models(ConstrainModels(pods, Cluster(), 0.0, 11)), models(pods));
}

TEST(RaiseMultiGpuShare, ReplacesOneGpuPodsWithResampledMultiGpuPods) {
  const auto pods = Workload();
  const auto out = RaiseMultiGpuShare(pods, 0.3, 5);
  ASSERT_EQ(out.size(), pods.size());
  EXPECT_EQ(Count(out, [](const PodRequest& p) { return p.gpu_count > 1; }), 270);  // 30% of 900.
  EXPECT_EQ(Count(out, [](const PodRequest& p) { return !p.WantsGpu(); }), 100);
  for (const auto& p : out) {
    if (p.gpu_count > 1) {
      EXPECT_EQ(p.gpu_count, 8);  // Copies of the list's own multi-GPU pods.
    }
  }
  // Already above the share: unchanged.
  EXPECT_EQ(Count(RaiseMultiGpuShare(pods, 0.01, 5), [](const PodRequest& p) { return p.gpu_count > 1; }), 20);
}

TEST(RaiseMultiGpuShare, NeedsMultiGpuPodsToResample) {
  std::vector<PodRequest> pods = {Pod(1, 1000), Pod(1, 500)};
  EXPECT_THROW(RaiseMultiGpuShare(pods, 0.5, 1), std::invalid_argument);
}

TEST(DeriveWorkload, DispatchesOnTheShape) {
  const auto pods = Workload();
  EXPECT_EQ(Count(DeriveWorkload(pods, Cluster(), DeriveSpec::Parse("multi-gpu:0.5"), 1),
                  [](const PodRequest& p) { return p.gpu_count > 1; }),
            450);
  EXPECT_EQ(Count(DeriveWorkload(pods, Cluster(), DeriveSpec::Parse("model-constrained:0.1"), 1),
                  [](const PodRequest& p) { return !p.gpu_models.empty(); }),
            90);
  EXPECT_EQ(DeriveWorkload(pods, Cluster(), DeriveSpec{}, 1).size(), pods.size());
}

}  // namespace
}  // namespace gangplank::simulator::openb

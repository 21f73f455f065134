// Per-pod values from dcgm-exporter-shaped samples, with plain and exported_* pod labels.
#include "promql/pod_values.h"

#include <gtest/gtest.h>

#include <cmath>

namespace gangplank::promql {
namespace {

Sample GpuSample(Labels labels, double value) { return Sample{std::move(labels), value, {}}; }

TEST(ByPod, AveragesAPodsGpusAndSkipsIdleOnes) {
  const InstantVector vector{GpuSample({{"namespace", "ml"}, {"pod", "a"}, {"gpu", "0"}}, 80),
                             GpuSample({{"namespace", "ml"}, {"pod", "a"}, {"gpu", "1"}}, 40),
                             GpuSample({{"namespace", ""}, {"pod", ""}, {"gpu", "2"}}, 0),
                             GpuSample({{"namespace", "ml"}, {"pod", "b"}, {"gpu", "3"}}, NAN)};
  const auto pods = ByPod(vector);
  ASSERT_EQ(pods.size(), 1u);
  EXPECT_DOUBLE_EQ(pods.at({"ml", "a"}), 60);
  EXPECT_DOUBLE_EQ(ByPod(vector, {}, Combine::kSum).at({"ml", "a"}), 120);
  EXPECT_DOUBLE_EQ(ByPod(vector, {}, Combine::kMax).at({"ml", "a"}), 80);
}

TEST(ByPod, PrefersExportedLabelsOverTheScrapersOwn) {
  // Scraped without honor_labels: namespace/pod name the exporter's pod, exported_* the workload's.
  const InstantVector vector{GpuSample(
      {{"namespace", "gpu-operator"}, {"pod", "dcgm-exporter-x"}, {"exported_namespace", "ml"}, {"exported_pod", "a"}},
      70)};
  EXPECT_DOUBLE_EQ(ByPod(vector).at({"ml", "a"}), 70);
  const PodLabelNames own{{"namespace"}, {"pod"}};
  EXPECT_DOUBLE_EQ(ByPod(vector, own).at({"gpu-operator", "dcgm-exporter-x"}), 70);
}

}  // namespace
}  // namespace gangplank::promql

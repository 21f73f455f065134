#include "engine/level_display_name.h"

#include <gtest/gtest.h>

namespace gangplank::engine {
namespace {

TEST(LevelDisplayName, WellKnownKeysGetTheirCommonNames) {
  EXPECT_EQ(LevelDisplayName("nvidia.com/gpu.clique"), "NVLink domain");
  EXPECT_EQ(LevelDisplayName("topology.kubernetes.io/zone"), "zone");
  EXPECT_EQ(LevelDisplayName("topology.kubernetes.io/region"), "region");
  EXPECT_EQ(LevelDisplayName("kubernetes.io/hostname"), "node");
  EXPECT_EQ(LevelDisplayName("cloud.google.com/gce-topology-block"), "block");
  EXPECT_EQ(LevelDisplayName("cloud.google.com/gce-topology-subblock"), "sub-block");
  EXPECT_EQ(LevelDisplayName("pool"), "pool");
}

TEST(LevelDisplayName, NetworkLayersKeepTheirKeyAndOtherKeysAreThemselves) {
  EXPECT_EQ(LevelDisplayName("network.topology.nvidia.com/spine"), "network domain (network.topology.nvidia.com/spine)");
  EXPECT_EQ(LevelDisplayName("topology.k8s.aws/network-node-layer-2"),
            "network domain (topology.k8s.aws/network-node-layer-2)");
  EXPECT_EQ(LevelDisplayName("network.topology.nvidia.com/"), "network.topology.nvidia.com/");
  EXPECT_EQ(LevelDisplayName("gangplank.io/rack"), "gangplank.io/rack");
  EXPECT_EQ(LevelDisplayName(""), "");
}

}  // namespace
}  // namespace gangplank::engine

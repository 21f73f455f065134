// spec.autoscaling of GPUPools (crds/gpupool.gangplank.io.yaml): off by default as the CRD declares it,
// every field read, bad values refused naming the field.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cache/crd/pool_config.h"
#include "tests/cache/support/pool_spec.h"

namespace gangplank::cache {
namespace {

using Json = nlohmann::json;

PoolConfig Pool(const std::string& spec) { return testing::PoolOfSpec(spec); }
std::string PoolError(const std::string& spec) { return testing::PoolSpecError(spec); }

TEST(PoolAutoscalingConfig, AnAbsentOrEmptySpecIsOffWithTheCrdsDefaults) {
  for (const char* spec : {"{}", R"({"autoscaling":{}})"}) {
    const PoolAutoscaling a = Pool(spec).autoscaling;
    EXPECT_EQ(a, PoolAutoscaling{});
    EXPECT_FALSE(a.enabled);
    EXPECT_EQ(a.node_gpus, 8);
    EXPECT_EQ(a.provision_timeout_seconds, 300);
  }
}

TEST(PoolAutoscalingConfig, ReadsEveryField) {
  const PoolAutoscaling a = Pool(R"({"topologyLevels":["zone","gangplank.io/clique"],"autoscaling":{"enabled":true,
      "nodeGPUs":4,"domainLabel":"gangplank.io/clique","domains":["c0","c1"],
      "nodeSelector":{"karpenter.sh/nodepool":"gpu"},"provisionTimeoutSeconds":120}})")
                                .autoscaling;
  EXPECT_TRUE(a.enabled);
  EXPECT_EQ(a.node_gpus, 4);
  EXPECT_EQ(a.domain_label, "gangplank.io/clique");
  EXPECT_EQ(a.domains, (std::vector<std::string>{"c0", "c1"}));
  EXPECT_EQ(a.node_selector, (std::map<std::string, std::string>{{"karpenter.sh/nodepool", "gpu"}}));
  EXPECT_EQ(a.provision_timeout_seconds, 120);
}

TEST(PoolAutoscalingConfig, BadFieldsAreNamed) {
  EXPECT_EQ(PoolError(R"({"autoscaling":{"nodeGPUs":0}})"), "spec.autoscaling.nodeGPUs: expected at least 1");
  EXPECT_EQ(PoolError(R"({"autoscaling":{"domainLabel":"rack"}})"),
            "spec.autoscaling.domainLabel: 'rack' is not one of the pool's topologyLevels");
  EXPECT_EQ(PoolError(R"({"autoscaling":{"domains":["c0"]}})"), "spec.autoscaling.domains: needs a domainLabel");
  EXPECT_EQ(PoolError(R"({"topologyLevels":["c"],"autoscaling":{"domainLabel":"c","domains":["a","a"]}})"),
            "spec.autoscaling.domains[1]: domain a is listed twice");
  EXPECT_EQ(PoolError(R"({"autoscaling":{"provisionTimeoutSeconds":5}})"),
            "spec.autoscaling.provisionTimeoutSeconds: expected at least 10");
  EXPECT_NE(PoolError(R"({"autoscaling":{"enabled":"yes"}})"), "");
}

}  // namespace
}  // namespace gangplank::cache

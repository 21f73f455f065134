#include "cache/objects/convert.h"

#include <gtest/gtest.h>

#include "cache/objects/decode_error.h"

namespace gangplank::cache {
namespace {

PodInfo PodWith(std::vector<ContainerResources> containers, std::vector<ContainerResources> init = {}) {
  PodInfo pod;
  pod.name = "p";
  pod.namespace_ = "ns";
  pod.containers = std::move(containers);
  pod.init_containers = std::move(init);
  return pod;
}

std::string ConversionFailure(const PodInfo& pod) {
  try {
    ToPodRequest(pod);
  } catch (const DecodeError& e) {
    return e.what();
  }
  return "<converted>";
}

TEST(ToPodRequest, SumsContainersTakesMaxWithInitContainersAddsOverhead) {
  PodInfo pod = PodWith({{{{"cpu", "1500m"}, {"memory", "1Gi"}}, {}}, {{{"cpu", "500m"}, {"memory", "512Mi"}}, {}}},
                        {{{{"cpu", "3"}, {"memory", "1Mi"}}, {}}});
  pod.overhead = {{"cpu", "100m"}};
  const engine::PodRequest r = ToPodRequest(pod);
  EXPECT_EQ(r.host.cpu_milli, 3100);  // max(2000, 3000) + 100
  EXPECT_EQ(r.host.memory_mib, 1536);
  EXPECT_FALSE(r.WantsGpu());
}

TEST(ToPodRequest, LimitsStandInForMissingRequests) {
  const engine::PodRequest r = ToPodRequest(PodWith({{{{"cpu", "1"}}, {{"cpu", "4"}, {"nvidia.com/gpu", "2"}}}}));
  EXPECT_EQ(r.host.cpu_milli, 1000);
  EXPECT_EQ(r.gpu_count, 2);
  EXPECT_EQ(r.gpu_milli, engine::kMilliPerGpu);
}

TEST(ToPodRequest, SharedGpuFromGpuMilliAndModelsFromAnnotation) {
  PodInfo pod = PodWith({{{{"gangplank.io/gpu-milli", "250"}}, {}}});
  pod.annotations["gangplank.io/gpu-models"] = " A100| H100 ||";
  pod.node_selector = {{"pool", "a"}};
  const engine::PodRequest r = ToPodRequest(pod);
  EXPECT_EQ(r.gpu_count, 1);
  EXPECT_EQ(r.gpu_milli, 250);
  EXPECT_TRUE(r.IsSharing());
  EXPECT_EQ(r.gpu_models, (std::vector<std::string>{"A100", "H100"}));
  EXPECT_EQ(r.node_selector.at("pool"), "a");
}

TEST(ToPodRequest, ImpossibleOrMalformedRequestsNameTheField) {
  EXPECT_EQ(ConversionFailure(PodWith({{{{"cpu", "lots"}}, {}}})),
            "spec.containers[0].resources.requests.cpu: invalid quantity \"lots\": no digits");
  EXPECT_EQ(ConversionFailure(PodWith({{}, {{}, {{"memory", "1Qi"}}}})),
            "spec.containers[1].resources.limits.memory: invalid quantity \"1Qi\": unknown suffix \"Qi\"");
  EXPECT_EQ(ConversionFailure(PodWith({{{{"nvidia.com/gpu", "1"}, {"gangplank.io/gpu-milli", "500"}}, {}}})),
            "spec.containers: asks for both nvidia.com/gpu and gangplank.io/gpu-milli; use one of them");
  EXPECT_NE(ConversionFailure(PodWith({{{{"gangplank.io/gpu-milli", "1500"}}, {}}})).find("exceeds one GPU"),
            std::string::npos);
  EXPECT_EQ(ConversionFailure(PodWith({{{{"cpu", "-1"}}, {}}})), "spec.containers[0].resources.cpu: negative quantity");
}

TEST(ToNodeSpec, AllocatableAndGpuModel) {
  NodeInfo n;
  n.name = "n";
  n.allocatable = {{"cpu", "95690m"}, {"memory", "1056375928Ki"}, {"nvidia.com/gpu", "8"}, {"pods", "110"}};
  n.labels = {{"nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3"}};
  const engine::NodeSpec s = ToNodeSpec(n);
  EXPECT_EQ(s.capacity.cpu_milli, 95690);
  EXPECT_EQ(s.capacity.memory_mib, 1056375928LL / 1024);
  EXPECT_EQ(s.gpu_count, 8);
  EXPECT_EQ(s.gpu_model, "NVIDIA-H100-80GB-HBM3");
  n.allocatable = {{"cpu", "x"}};
  EXPECT_THROW(ToNodeSpec(n), DecodeError);
}

TEST(IsInterested, ManagedResourcesInRequestsOrLimitsOfAnyContainer) {
  const std::vector<std::string> managed{"nvidia.com/gpu", "gangplank.io/gpu-milli"};
  EXPECT_TRUE(IsInterested(PodWith({{{{"cpu", "1"}}, {}}}), {}));
  EXPECT_FALSE(IsInterested(PodWith({{{{"cpu", "1"}}, {}}}), managed));
  EXPECT_TRUE(IsInterested(PodWith({{{}, {{"nvidia.com/gpu", "1"}}}}), managed));
  EXPECT_TRUE(IsInterested(PodWith({{{{"cpu", "1"}}, {}}}, {{{{"gangplank.io/gpu-milli", "100"}}, {}}}), managed));
}

}  // namespace
}  // namespace gangplank::cache

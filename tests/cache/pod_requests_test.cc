// A pod's effective request by Kubernetes' rule (base/pod_requests.h): sidecars (KEP-753), regular init
// containers beside the sidecars started before them, pod-level resources and overhead. The cases are those
// kube-scheduler's own resource helpers are tested with, and the GPU sidecar a tenant could hide GPUs in.
#include "base/pod_requests.h"

#include <gtest/gtest.h>

#include "cache/objects/convert.h"

namespace gangplank::cache {
namespace {

ContainerResources Cpu(const std::string& cpu, bool sidecar = false) {
  ContainerResources c;
  c.requests = {{"cpu", cpu}};
  c.sidecar = sidecar;
  return c;
}

ContainerResources Gpus(const std::string& gpus, bool sidecar = false) {
  ContainerResources c;
  c.limits = {{"nvidia.com/gpu", gpus}};
  c.sidecar = sidecar;
  return c;
}

PodInfo Pod(std::vector<ContainerResources> containers, std::vector<ContainerResources> init) {
  PodInfo pod;
  pod.name = "p";
  pod.namespace_ = "ns";
  pod.containers = std::move(containers);
  pod.init_containers = std::move(init);
  return pod;
}

std::int64_t CpuMilli(const PodInfo& pod) { return ToPodRequest(pod).host.cpu_milli; }

TEST(PodRequests, OneSidecarRunsBesideTheAppContainers) {
  EXPECT_EQ(CpuMilli(Pod({Cpu("1")}, {Cpu("1", true)})), 2000);
}

TEST(PodRequests, SidecarsAddUpAndALargerEarlierInitContainerIsOnlyAPeak) {
  // max(5 for the first init container alone, 3 + 2 + 1 sidecars + 1 app container) = 7
  EXPECT_EQ(CpuMilli(Pod({Cpu("1")}, {Cpu("5"), Cpu("1", true), Cpu("2", true), Cpu("3", true)})), 7000);
}

TEST(PodRequests, AnInitContainerRunsBesideOnlyTheSidecarsStartedBeforeIt) {
  // The second regular init container runs with the first two sidecars: 5 + 1 + 2 = 8 > 1 + 1 + 2 + 3.
  EXPECT_EQ(CpuMilli(Pod({Cpu("1")}, {Cpu("5"), Cpu("1", true), Cpu("2", true), Cpu("5"), Cpu("3", true)})), 8000);
}

TEST(PodRequests, RegularInitContainersAloneAreAPeakNotASum) {
  EXPECT_EQ(CpuMilli(Pod({Cpu("1"), Cpu("2")}, {Cpu("4"), Cpu("2")})), 4000);
}

TEST(PodRequests, PodLevelResourcesReplaceCpuAndMemoryButNotGpus) {
  PodInfo pod = Pod({Cpu("1"), Gpus("2")}, {Cpu("3", true)});
  pod.pod_resources = ContainerResources{{{"cpu", "10"}, {"memory", "2Gi"}}, {}, false};
  pod.overhead = {{"cpu", "250m"}};
  const engine::PodRequest r = ToPodRequest(pod);
  EXPECT_EQ(r.host.cpu_milli, 10250);  // Pod-level 10, plus the overhead.
  EXPECT_EQ(r.host.memory_mib, 2048);
  EXPECT_EQ(r.gpu_count, 2);  // GPUs are no pod-level resource.
}

TEST(PodRequests, GpuSidecarsAreCountedSoNoTenantHidesGpusInThem) {
  // Seven sidecars with one GPU each and one GPU container hold eight GPUs on the node.
  std::vector<ContainerResources> sidecars(7, Gpus("1", true));
  const engine::PodRequest r = ToPodRequest(Pod({Gpus("1")}, sidecars));
  EXPECT_EQ(r.gpu_count, 8);
  // A plain init container asking for GPUs only peaks: it ends before the app starts.
  EXPECT_EQ(ToPodRequest(Pod({Gpus("1")}, {Gpus("4")})).gpu_count, 4);
  EXPECT_EQ(ToPodRequest(Pod({Gpus("1")}, {Gpus("1", true), Gpus("4")})).gpu_count, 5);
}

TEST(PodRequests, TheSharedRuleInTheClientsUnits) {
  const base::Amounts total =
      base::PodRequests({{{{"cpu", 1000}}, {}, false}}, {{{}, {{"cpu", 2000}}, true}, {{{"cpu", 2500}}, {}, false}},
                        nullptr, {{"cpu", 100}});
  ASSERT_EQ(total.size(), 1u);
  EXPECT_EQ(total[0].second, 4600);  // max(1000 + 2000, 2500 + 2000) + 100: the limit stands in for the request.
}

}  // namespace
}  // namespace gangplank::cache

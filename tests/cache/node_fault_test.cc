// Node faults (the signals and their sources in cache/objects/node_fault.h), read from Node objects as
// kube-apiserver returns them: the node controller's Ready=Unknown and taints, the kubelet's NotReady, the
// health tools' conditions, a GPU-health quarantine, the device plugin's lowered allocatable.
#include "cache/objects/node_fault.h"

#include <gtest/gtest.h>

#include "tests/cache/support/object_json.h"

namespace gangplank::cache {
namespace {

using testing::NodeFromJson;

// An 8-GPU H100 node as kube-apiserver returns it, with these status.conditions, spec.taints and
// spec.unschedulable, and this nvidia.com/gpu allocatable.
std::string NodeJson(const std::string& conditions, const std::string& taints = "[]", bool cordoned = false,
                     const std::string& gpus = "8") {
  return R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"gpu-17","uid":"5f0c6c1e-3b0e-4a4e-9d0a-7c1f3e2b9a41",
    "resourceVersion":"48213377","creationTimestamp":"2026-01-12T08:00:41Z",
    "labels":{"kubernetes.io/hostname":"gpu-17","kubernetes.io/os":"linux","nvidia.com/gpu.count":"8",
      "nvidia.com/gpu.product":"NVIDIA-H100-80GB-HBM3","topology.kubernetes.io/zone":"us-east-1a"},
    "annotations":{"node.alpha.kubernetes.io/ttl":"0","volumes.kubernetes.io/controller-managed-attach-detach":"true"}},
  "spec":{"podCIDR":"10.244.17.0/24","podCIDRs":["10.244.17.0/24"],"providerID":"aws:///us-east-1a/i-0a1b2c3d4e5f60718",)" +
         std::string(cordoned ? R"("unschedulable":true,)" : "") + R"("taints":)" + taints + R"(},
  "status":{"capacity":{"cpu":"192","ephemeral-storage":"7440663456Ki","memory":"2113407564Ki","nvidia.com/gpu":"8","pods":"110"},
    "allocatable":{"cpu":"191450m","ephemeral-storage":"6857362020143","memory":"2096424012Ki","nvidia.com/gpu":")" +
         gpus + R"(","pods":"110"},
    "conditions":)" + conditions + R"(,
    "addresses":[{"type":"InternalIP","address":"10.0.17.12"},{"type":"Hostname","address":"gpu-17"}],
    "daemonEndpoints":{"kubeletEndpoint":{"Port":10250}},
    "nodeInfo":{"architecture":"amd64","containerRuntimeVersion":"containerd://2.1.4","kernelVersion":"6.8.0-1021-aws",
      "kubeProxyVersion":"","kubeletVersion":"v1.35.4","operatingSystem":"linux","osImage":"Ubuntu 24.04.2 LTS"}}})";
}

// The kubelet's four conditions, all healthy, and node-problem-detector's kernel monitor's.
const std::string kHealthyConditions = R"([
  {"type":"KernelDeadlock","status":"False","lastHeartbeatTime":"2026-03-02T10:13:40Z","lastTransitionTime":"2026-01-12T08:02:10Z","reason":"KernelHasNoDeadlock","message":"kernel has no deadlock"},
  {"type":"ReadonlyFilesystem","status":"False","lastHeartbeatTime":"2026-03-02T10:13:40Z","lastTransitionTime":"2026-01-12T08:02:10Z","reason":"FilesystemIsNotReadOnly","message":"Filesystem is not read-only"},
  {"type":"MemoryPressure","status":"False","lastHeartbeatTime":"2026-03-02T10:13:58Z","lastTransitionTime":"2026-01-12T08:00:41Z","reason":"KubeletHasSufficientMemory","message":"kubelet has sufficient memory available"},
  {"type":"DiskPressure","status":"False","lastHeartbeatTime":"2026-03-02T10:13:58Z","lastTransitionTime":"2026-01-12T08:00:41Z","reason":"KubeletHasNoDiskPressure","message":"kubelet has no disk pressure"},
  {"type":"PIDPressure","status":"False","lastHeartbeatTime":"2026-03-02T10:13:58Z","lastTransitionTime":"2026-01-12T08:00:41Z","reason":"KubeletHasSufficientPID","message":"kubelet has sufficient PID available"},
  {"type":"Ready","status":"True","lastHeartbeatTime":"2026-03-02T10:13:58Z","lastTransitionTime":"2026-01-12T08:01:22Z","reason":"KubeletReady","message":"kubelet is posting ready status"}])";

// The node controller after 40 s without a heartbeat (node_lifecycle_controller.go): every kubelet
// condition Unknown from the same instant; taints node.kubernetes.io/unreachable, NoExecute with timeAdded.
const std::string kUnreachableConditions = R"([
  {"type":"MemoryPressure","status":"Unknown","lastHeartbeatTime":"2026-03-02T10:13:58Z","lastTransitionTime":"2026-03-02T10:14:48Z","reason":"NodeStatusUnknown","message":"Kubelet stopped posting node status."},
  {"type":"DiskPressure","status":"Unknown","lastHeartbeatTime":"2026-03-02T10:13:58Z","lastTransitionTime":"2026-03-02T10:14:48Z","reason":"NodeStatusUnknown","message":"Kubelet stopped posting node status."},
  {"type":"PIDPressure","status":"Unknown","lastHeartbeatTime":"2026-03-02T10:13:58Z","lastTransitionTime":"2026-03-02T10:14:48Z","reason":"NodeStatusUnknown","message":"Kubelet stopped posting node status."},
  {"type":"Ready","status":"Unknown","lastHeartbeatTime":"2026-03-02T10:13:58Z","lastTransitionTime":"2026-03-02T10:14:48Z","reason":"NodeStatusUnknown","message":"Kubelet stopped posting node status."}])";
const std::string kUnreachableTaints = R"([{"key":"node.kubernetes.io/unreachable","effect":"NoSchedule"},
  {"key":"node.kubernetes.io/unreachable","effect":"NoExecute","timeAdded":"2026-03-02T10:14:53Z"}])";

// The kubelet saying its node is not ready (the runtime is down).
const std::string kNotReadyConditions = R"([
  {"type":"MemoryPressure","status":"False","lastHeartbeatTime":"2026-03-02T09:41:07Z","lastTransitionTime":"2026-01-12T08:00:41Z","reason":"KubeletHasSufficientMemory","message":"kubelet has sufficient memory available"},
  {"type":"Ready","status":"False","lastHeartbeatTime":"2026-03-02T09:41:07Z","lastTransitionTime":"2026-03-02T09:41:07Z","reason":"KubeletNotReady","message":"container runtime is down"}])";
const std::string kNotReadyTaints = R"([{"key":"node.kubernetes.io/not-ready","effect":"NoSchedule"},
  {"key":"node.kubernetes.io/not-ready","effect":"NoExecute","timeAdded":"2026-03-02T09:41:12Z"}])";

// NVSentinel's platform connector after a fatal DCGM memory watch: the condition True, the node cordoned
// by its fault-quarantine, with the taint its rulesets may add.
const std::string kNvSentinelConditions = R"([
  {"type":"GpuMemWatch","status":"True","lastHeartbeatTime":"2026-03-02T11:02:31Z","lastTransitionTime":"2026-03-02T11:02:31Z","reason":"GpuMemWatchIsNotHealthy","message":"ErrorCode:DCGM_FR_VOLATILE_DBE_DETECTED GPU:3 Detected 2 volatile double-bit ECC error(s) in GPU 3. Recommended Action=RESTART_VM;"},
  {"type":"GpuNvlinkWatch","status":"False","lastHeartbeatTime":"2026-03-02T11:02:31Z","lastTransitionTime":"2026-01-12T08:05:00Z","reason":"GpuNvlinkWatchIsHealthy","message":"No Health Failures"},
  {"type":"Ready","status":"True","lastHeartbeatTime":"2026-03-02T11:02:58Z","lastTransitionTime":"2026-01-12T08:01:22Z","reason":"KubeletReady","message":"kubelet is posting ready status"}])";
const std::string kQuarantineTaints = R"([{"key":"nvidia.com/gpu-xid-error","value":"true","effect":"NoSchedule"},
  {"key":"node.kubernetes.io/unschedulable","effect":"NoSchedule"}])";

// The EKS node monitoring agent after an Xid 79: its conditions say healthy when True.
const std::string kEksConditions = R"([
  {"type":"KernelReady","status":"True","lastHeartbeatTime":"2026-03-02T08:55:12Z","lastTransitionTime":"2026-01-12T08:03:00Z","reason":"KernelIsReady","message":"Monitoring for the Kernel system is active"},
  {"type":"AcceleratedHardwareReady","status":"False","lastHeartbeatTime":"2026-03-02T08:55:12Z","lastTransitionTime":"2026-03-02T08:55:12Z","reason":"NvidiaXID79Error","message":"detected XID-79 on the instance, review kernel logs for additional information"},
  {"type":"Ready","status":"True","lastHeartbeatTime":"2026-03-02T08:55:40Z","lastTransitionTime":"2026-01-12T08:01:22Z","reason":"KubeletReady","message":"kubelet is posting ready status"}])";

// A node whose informer keeps no conditions beyond the Ready status, nor taints' times.
NodeInfo WithoutDetails(NodeInfo n) {
  n.condition_details.clear();
  n.taint_time_added.clear();
  return n;
}

TEST(NodeFault, AHealthyNodeHasNone) {
  EXPECT_TRUE(ReadNodeFaults(NodeFromJson(NodeJson(kHealthyConditions))).empty());
  EXPECT_FALSE(ReadGpuShortfall(NodeFromJson(NodeJson(kHealthyConditions)), 8));
}

TEST(NodeFault, AnUnreachableNodeIsLostSinceTheNodeControllerSaidSo) {
  const NodeInfo node = NodeFromJson(NodeJson(kUnreachableConditions, kUnreachableTaints));
  const auto lost = ReadLostHost(node);
  ASSERT_TRUE(lost);
  EXPECT_EQ(lost->cause, NodeFaultCause::kUnreachable);
  EXPECT_EQ(lost->since, 1772446488);  // Ready's lastTransitionTime, 5 s before the NoExecute taint.
  EXPECT_FALSE(lost->host_alive);
  EXPECT_EQ(lost->signal, "Ready=Unknown since 2026-03-02T10:14:48Z (NodeStatusUnknown: Kubelet stopped posting node status.)");
  EXPECT_EQ(ReadNodeFaults(node).size(), 1u);
}

TEST(NodeFault, ANotReadyNodeIsLostSinceItsKubeletSaidSo) {
  const auto lost = ReadLostHost(NodeFromJson(NodeJson(kNotReadyConditions, kNotReadyTaints)));
  ASSERT_TRUE(lost);
  EXPECT_EQ(lost->cause, NodeFaultCause::kNotReady);
  EXPECT_EQ(lost->since, 1772444467);
  EXPECT_FALSE(lost->host_alive);
  EXPECT_EQ(lost->signal, "Ready=False since 2026-03-02T09:41:07Z (KubeletNotReady: container runtime is down)");
}

TEST(NodeFault, WithoutTheConditionsTimeTheTaintsTimeIsTheStart) {
  NodeInfo node = NodeFromJson(NodeJson(kUnreachableConditions, kUnreachableTaints));
  node.condition_details.erase("Ready");
  const auto lost = ReadLostHost(node);
  ASSERT_TRUE(lost);
  EXPECT_EQ(lost->since, 1772446493);
  EXPECT_EQ(lost->signal, "Ready=Unknown since 2026-03-02T10:14:53Z");
  // Nothing with a time: the operator measures from its first sighting.
  const auto untimed = ReadLostHost(WithoutDetails(NodeFromJson(NodeJson(kNotReadyConditions, kNotReadyTaints))));
  ASSERT_TRUE(untimed);
  EXPECT_FALSE(untimed->since);
  EXPECT_EQ(untimed->signal, "Ready=False");
}

TEST(NodeFault, TheNodeControllersTaintsAloneWhenNoReadyConditionIsKept) {
  NodeInfo unreachable = NodeFromJson(NodeJson("[]", kUnreachableTaints));
  const auto lost = ReadLostHost(unreachable);
  ASSERT_TRUE(lost);
  EXPECT_EQ(lost->cause, NodeFaultCause::kUnreachable);
  EXPECT_EQ(lost->signal, "taint node.kubernetes.io/unreachable:NoExecute since 2026-03-02T10:14:53Z");
  EXPECT_EQ(lost->since, 1772446493);
  const auto not_ready = ReadLostHost(NodeFromJson(NodeJson("[]", kNotReadyTaints)));
  ASSERT_TRUE(not_ready);
  EXPECT_EQ(not_ready->cause, NodeFaultCause::kNotReady);
  EXPECT_EQ(not_ready->signal, "taint node.kubernetes.io/not-ready:NoExecute since 2026-03-02T09:41:12Z");
}

TEST(NodeFault, AReadyNodeIsNotLostWhileTheNodeControllersTaintsTrailIt) {
  // The kubelet is back; the node controller removes its taints at its next pass.
  EXPECT_FALSE(ReadLostHost(NodeFromJson(NodeJson(kHealthyConditions, kUnreachableTaints))));
}

TEST(NodeFault, AHealthToolsConditionIsAFaultOfALiveHost) {
  const NodeInfo node = NodeFromJson(NodeJson(kNvSentinelConditions));
  const auto faults = ReadUnhealthyConditions(node, DefaultUnhealthyConditions());
  ASSERT_EQ(faults.size(), 1u);  // GpuNvlinkWatch=False is healthy.
  EXPECT_EQ(faults[0].cause, NodeFaultCause::kCondition);
  EXPECT_TRUE(faults[0].host_alive);
  EXPECT_EQ(faults[0].since, 1772449351);
  EXPECT_EQ(faults[0].signal,
            "GpuMemWatch=True since 2026-03-02T11:02:31Z (GpuMemWatchIsNotHealthy: ErrorCode:DCGM_FR_VOLATILE_DBE_DETECTED "
            "GPU:3 Detected 2 volatile double-bit ECC error(s) in GPU 3. Recommended Action=RESTART_VM;)");
}

TEST(NodeFault, TheEksAgentsConditionIsUnhealthyWhenFalse) {
  const NodeInfo node = NodeFromJson(NodeJson(kEksConditions));
  const auto faults = ReadNodeFaults(node);
  ASSERT_EQ(faults.size(), 1u);
  EXPECT_EQ(faults[0].signal,
            "AcceleratedHardwareReady=False since 2026-03-02T08:55:12Z (NvidiaXID79Error: detected XID-79 on the instance, "
            "review kernel logs for additional information)");
  EXPECT_EQ(faults[0].since, 1772441712);
  NodeInfo healthy = node;
  healthy.conditions["AcceleratedHardwareReady"] = "True";
  EXPECT_TRUE(ReadNodeFaults(healthy).empty());
}

TEST(NodeFault, EveryDefaultConditionCountsInItsUnhealthyStatusOnly) {
  for (const UnhealthyCondition& rule : DefaultUnhealthyConditions()) {
    NodeInfo node = WithoutDetails(NodeFromJson(NodeJson(kHealthyConditions)));
    node.conditions[rule.type] = rule.status;
    const auto faults = ReadUnhealthyConditions(node, DefaultUnhealthyConditions());
    ASSERT_EQ(faults.size(), 1u) << rule.type;
    EXPECT_EQ(faults[0].signal, rule.type + "=" + rule.status) << "no details kept for it";
    node.conditions[rule.type] = rule.status == "True" ? "False" : "True";
    EXPECT_TRUE(ReadUnhealthyConditions(node, DefaultUnhealthyConditions()).empty()) << rule.type;
  }
}

TEST(NodeFault, APoolsListReplacesTheDefaults) {
  NodeInfo node = NodeFromJson(NodeJson(kNvSentinelConditions));
  node.conditions["example.com/FabricDegraded"] = "Unknown";
  const NodeFaultRules rules{{{"example.com/FabricDegraded", "Unknown"}}, {}};
  const auto faults = ReadNodeFaults(node, rules);
  ASSERT_EQ(faults.size(), 1u);  // Not GpuMemWatch: the pool does not list it.
  EXPECT_EQ(faults[0].signal, "example.com/FabricDegraded=Unknown");
}

TEST(NodeFault, ACordonedNodeWithAGpuHealthTaintIsQuarantined) {
  const NodeInfo node = NodeFromJson(NodeJson(kNvSentinelConditions, kQuarantineTaints, /*cordoned=*/true));
  const auto quarantine = ReadQuarantine(node, DefaultQuarantineTaints());
  ASSERT_TRUE(quarantine);
  EXPECT_EQ(quarantine->cause, NodeFaultCause::kQuarantine);
  EXPECT_TRUE(quarantine->host_alive);
  EXPECT_FALSE(quarantine->since);  // NoSchedule taints carry no timeAdded.
  EXPECT_EQ(quarantine->signal, "cordoned, taint nvidia.com/gpu-xid-error=true:NoSchedule");
  // The condition and the quarantine, each said.
  const auto faults = ReadNodeFaults(node);
  ASSERT_EQ(faults.size(), 2u);
  EXPECT_EQ(faults[0].cause, NodeFaultCause::kCondition);
  EXPECT_EQ(faults[1].cause, NodeFaultCause::kQuarantine);
}

TEST(NodeFault, ATaintWithoutACordonOrACordonWithoutATaintIsNoQuarantine) {
  EXPECT_FALSE(ReadQuarantine(NodeFromJson(NodeJson(kHealthyConditions, kQuarantineTaints)), DefaultQuarantineTaints()));
  // kubectl cordon: the node controller's unschedulable taint only.
  const std::string cordon = R"([{"key":"node.kubernetes.io/unschedulable","effect":"NoSchedule"}])";
  EXPECT_FALSE(ReadQuarantine(NodeFromJson(NodeJson(kHealthyConditions, cordon, true)), DefaultQuarantineTaints()));
  // A GPU node's usual taint keeps other pods off; it says nothing about health.
  const std::string gpu = R"([{"key":"nvidia.com/gpu","value":"present","effect":"NoSchedule"}])";
  EXPECT_FALSE(ReadQuarantine(NodeFromJson(NodeJson(kHealthyConditions, gpu, true)), DefaultQuarantineTaints()));
}

TEST(NodeFault, EveryDefaultQuarantineTaintCountsOnACordonedNode) {
  for (const std::string& key : DefaultQuarantineTaints()) {
    const std::string taints = R"([{"key":")" + key + R"(","effect":"NoSchedule","timeAdded":"2026-03-02T12:20:05Z"}])";
    const auto quarantine = ReadQuarantine(NodeFromJson(NodeJson(kHealthyConditions, taints, true)), DefaultQuarantineTaints());
    ASSERT_TRUE(quarantine) << key;
    EXPECT_EQ(quarantine->signal, "cordoned, taint " + key + ":NoSchedule since 2026-03-02T12:20:05Z");
    EXPECT_EQ(quarantine->since, 1772454005);
  }
}

TEST(NodeFault, TheHostLossComesFirst) {
  const NodeInfo node = NodeFromJson(NodeJson(R"([
    {"type":"GpuMemWatch","status":"True","lastTransitionTime":"2026-03-02T11:02:31Z","reason":"GpuMemWatchIsNotHealthy"},
    {"type":"Ready","status":"Unknown","lastTransitionTime":"2026-03-02T10:14:48Z","reason":"NodeStatusUnknown"}])",
                                              kQuarantineTaints, true));
  const auto faults = ReadNodeFaults(node);
  ASSERT_EQ(faults.size(), 3u);
  EXPECT_EQ(faults[0].cause, NodeFaultCause::kUnreachable);
  EXPECT_EQ(faults[0].signal, "Ready=Unknown since 2026-03-02T10:14:48Z (NodeStatusUnknown)");
  EXPECT_EQ(faults[1].cause, NodeFaultCause::kCondition);
  EXPECT_EQ(faults[2].cause, NodeFaultCause::kQuarantine);
}

TEST(NodeFault, GpuAllocatableBelowWhatPodsHoldIsAShortfall) {
  // The device plugin withdrew one GPU after an Xid error; the kubelet lowered allocatable to 7.
  const NodeInfo node = NodeFromJson(NodeJson(kHealthyConditions, "[]", false, "7"));
  const auto shortfall = ReadGpuShortfall(node, 8);
  ASSERT_TRUE(shortfall);
  EXPECT_EQ(shortfall->cause, NodeFaultCause::kGpuShortfall);
  EXPECT_EQ(shortfall->gpus_allocatable, 7);
  EXPECT_EQ(shortfall->gpus_allocated, 8);
  EXPECT_TRUE(shortfall->host_alive);
  EXPECT_FALSE(shortfall->since);
  EXPECT_EQ(shortfall->signal, "nvidia.com/gpu allocatable 7 < 8 held by pods");
  EXPECT_FALSE(ReadGpuShortfall(node, 7));
  EXPECT_FALSE(ReadGpuShortfall(node, 0));
}

TEST(NodeFault, AMissingGpuResourceIsNoGpusAndAMalformedOneIsNoSignal) {
  NodeInfo node = NodeFromJson(NodeJson(kHealthyConditions));
  node.allocatable = {{"cpu", "191450m"}, {"memory", "2096424012Ki"}};  // The device plugin is gone.
  const auto shortfall = ReadGpuShortfall(node, 4);
  ASSERT_TRUE(shortfall);
  EXPECT_EQ(shortfall->gpus_allocatable, 0);
  EXPECT_FALSE(ReadGpuShortfall(node, 0));
  node.allocatable = {{"nvidia.com/gpu", "eight"}};
  EXPECT_FALSE(ReadGpuShortfall(node, 8));
}

TEST(NodeFault, UnhealthyConditionEntries) {
  EXPECT_EQ(ParseUnhealthyCondition("KernelDeadlock"), (UnhealthyCondition{"KernelDeadlock", "True"}));
  EXPECT_EQ(ParseUnhealthyCondition("AcceleratedHardwareReady=False"), (UnhealthyCondition{"AcceleratedHardwareReady", "False"}));
  EXPECT_EQ(ParseUnhealthyCondition("example.com/Fabric.Degraded=Unknown"),
            (UnhealthyCondition{"example.com/Fabric.Degraded", "Unknown"}));
  for (const char* bad : {"", "Kernel Deadlock", "KernelDeadlock=", "KernelDeadlock=true", "KernelDeadlock=True=False",
                          "-KernelDeadlock", "KernelDeadlock.", "Example.com/Fabric", "a/b/c", "/Fabric"}) {
    EXPECT_FALSE(ParseUnhealthyCondition(bad)) << bad;
  }
  EXPECT_TRUE(IsQualifiedName("amd-gpu-unhealthy"));
  EXPECT_TRUE(IsQualifiedName("remediator.aks.microsoft.com/unschedulable"));
  EXPECT_FALSE(IsQualifiedName(std::string(64, 'a')));
  EXPECT_FALSE(IsQualifiedName("nvidia..com/gpu-error"));
  EXPECT_FALSE(IsQualifiedName(std::string(254, 'a') + "/x"));
}

TEST(NodeFault, CauseNames) {
  EXPECT_EQ(NodeFaultCauseName(NodeFaultCause::kNotReady), "NotReady");
  EXPECT_EQ(NodeFaultCauseName(NodeFaultCause::kUnreachable), "Unreachable");
  EXPECT_EQ(NodeFaultCauseName(NodeFaultCause::kCondition), "Condition");
  EXPECT_EQ(NodeFaultCauseName(NodeFaultCause::kGpuShortfall), "GpuShortfall");
  EXPECT_EQ(NodeFaultCauseName(NodeFaultCause::kQuarantine), "Quarantine");
}

}  // namespace
}  // namespace gangplank::cache

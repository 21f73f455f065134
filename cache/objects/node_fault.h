// A node's faults, read from the node as Kubernetes and the health tools mark it, for gang-level fault
// recovery (the operator turns each signal into the engine's NodeFault):
//   lost host    the Ready condition False (NotReady) or Unknown (unreachable: the node controller's
//                "Kubelet stopped posting node status"), or, where the condition is not kept, the node
//                controller's taints node.kubernetes.io/not-ready and node.kubernetes.io/unreachable. A
//                Ready=True condition wins over those taints (they trail it by a monitor period).
//   condition    a condition of the pool's unhealthyConditions list in its unhealthy status. Defaults:
//                  node-problem-detector's kernel monitor (config/kernel-monitor.json; GKE and AKS run it):
//                    KernelDeadlock, ReadonlyFilesystem, XfsShutdown
//                  AKS's node-problem-detector GPU checks: GPUMissing, XIDErrors, NVLinkStatusInactive
//                  NVIDIA NVSentinel (DCGM watches and syslog checks; it sets them True for fatal events
//                  only): GpuMemWatch, GpuNvlinkWatch, GpuPcieWatch, GpuSmWatch, GpuInforomWatch,
//                    GpuThermalWatch, GpuPowerWatch, GpuDriverWatch, GpuMcuWatch, GpuPmuWatch,
//                    SysLogsXIDError, SysLogsSXIDError, SysLogsGPUFallenOff
//                  the EKS node monitoring agent: AcceleratedHardwareReady=False (its conditions say
//                    healthy when True)
//   quarantine   the node cordoned (spec.unschedulable) and carrying a taint of the pool's quarantineTaints.
//                Defaults: NVSentinel's fault-quarantine taints (opt-in in its rulesets; the keys its docs
//                  and tests use): nvidia.com/gpu-xid-error, nvidia.com/gpu-nvlink-error,
//                  nvidia.com/syslog-xid-error, nvidia.com/gpu-error
//                AMD GPU Operator's auto-remediation: amd-gpu-unhealthy
//                AKS node auto-drain before a Redeploy or Terminate of the VM:
//                  remediator.aks.microsoft.com/unschedulable (on a spot node the same taint is a
//                  termination notice: termination_notice.h)
//                GKE documents no GPU-health taint: its faulty GPU hosts go through node auto-repair and
//                show as lost hosts.
//   GPU shortfall  nvidia.com/gpu allocatable below the GPUs pods hold on the node: the NVIDIA device
//                plugin withdraws a device it marks unhealthy after an Xid error.
// `since` is the object's own time (the condition's lastTransitionTime, the taint's timeAdded) where it
// has one; without one the operator measures from when it first saw the signal.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cache/objects/kube_objects.h"

namespace gangplank::cache {

enum class NodeFaultCause { kNotReady, kUnreachable, kCondition, kGpuShortfall, kQuarantine };
std::string_view NodeFaultCauseName(NodeFaultCause cause);  // "NotReady", "Unreachable", ...

struct NodeFaultSignal {
  NodeFaultCause cause = NodeFaultCause::kNotReady;
  // What says so, for events: "Ready=False since 2026-03-02T10:14:48Z (KubeletNotReady: ...)",
  // "taint node.kubernetes.io/unreachable:NoExecute since ...", "GpuMemWatch=True since ...".
  std::string signal;
  std::optional<double> since;  // Seconds since the epoch, from the object; none: first seen.
  // The node still runs its pods (a sick GPU, not a lost host): a checkpoint can be asked for first.
  bool host_alive = false;
  int gpus_allocatable = 0;  // GPU shortfall only: nvidia.com/gpu allocatable ...
  int gpus_allocated = 0;    // ... and what pods hold on the node.
};

// An entry of a GPUPool's spec.faultRecovery.unhealthyConditions: a condition type and the status that
// means unhealthy, written "Type" (status True) or "Type=Status".
struct UnhealthyCondition {
  std::string type;
  std::string status = "True";
  bool operator==(const UnhealthyCondition&) const = default;
};

// "KernelDeadlock", "AcceleratedHardwareReady=False"; nullopt unless the type is a qualified name (as
// metav1.Condition types are) and the status True, False or Unknown.
std::optional<UnhealthyCondition> ParseUnhealthyCondition(std::string_view entry);
// A Kubernetes qualified name ("prefix/name" or "name"), as taint keys and condition types are.
bool IsQualifiedName(std::string_view text);

const std::vector<UnhealthyCondition>& DefaultUnhealthyConditions();
const std::vector<std::string>& DefaultQuarantineTaints();

// What a GPU pool counts as a node fault (spec.faultRecovery).
struct NodeFaultRules {
  std::vector<UnhealthyCondition> unhealthy_conditions = DefaultUnhealthyConditions();
  std::vector<std::string> quarantine_taints = DefaultQuarantineTaints();
  bool operator==(const NodeFaultRules&) const = default;
};

// Every fault signal the node's conditions and taints carry, a lost host first, then conditions, then a
// quarantine. Empty: healthy by them (the GPU shortfall needs the pods: ReadGpuShortfall).
std::vector<NodeFaultSignal> ReadNodeFaults(const NodeInfo& node, const NodeFaultRules& rules = {});

std::optional<NodeFaultSignal> ReadLostHost(const NodeInfo& node);
std::vector<NodeFaultSignal> ReadUnhealthyConditions(const NodeInfo& node, const std::vector<UnhealthyCondition>& rules);
std::optional<NodeFaultSignal> ReadQuarantine(const NodeInfo& node, const std::vector<std::string>& taint_keys);
// `gpus_allocated`: whole GPUs the pods bound to the node hold. A missing nvidia.com/gpu allocatable
// counts as 0 (the kubelet drops the resource a while after its device plugin goes); a malformed one is
// no signal (ToNodeSpec reports it).
std::optional<NodeFaultSignal> ReadGpuShortfall(const NodeInfo& node, int gpus_allocated);

}  // namespace gangplank::cache

#include "engine/recovery/gang_faults.h"

#include <algorithm>
#include <optional>
#include <unordered_set>

#include "engine/recovery/fault_message.h"

namespace gangplank::engine {
namespace {

// A GPU shortfall is a fault only while the node offers fewer GPUs than its pods hold: a device that
// came back, or pods that left, clear it.
bool Holds(const NodeFault& f) { return f.cause != FaultCause::kGpuShortfall || f.gpus_allocatable < f.gpus_allocated; }

GangFault FromNode(const NodeFault& f, const RecoveryConfig& config, double now) {
  const bool lost = IsLostHost(f.cause);
  // A shortfall waits the grace too: a node moving its GPUs between the device plugin and DRA offers none
  // for a moment, and a device plugin restarting reports zero until it registers again.
  const bool transient = lost || f.cause == FaultCause::kGpuShortfall;
  const double counts_at = transient ? f.since + std::max(0.0, config.node_grace_seconds) : f.since;
  return {f.cause, f.node, NodeFaultMessage(f, now), f.since, counts_at, f.host_alive && !lost, true, false};
}

void AddNodeFaults(const GangHealth& gang, const NodeFaultIndex& nodes, double now, std::vector<GangFault>& out) {
  std::unordered_set<std::string_view> seen;
  for (const std::string& node : gang.nodes) {
    if (!seen.insert(node).second) continue;
    const auto it = nodes.find(node);
    if (it == nodes.end()) continue;
    for (const NodeFault* f : it->second) {
      if (Holds(*f)) out.push_back(FromNode(*f, gang.config, now));
    }
  }
}

// Since when the gang runs below its minimum, when it does.
std::optional<double> BelowMinimumSince(const GangHealth& gang) {
  if (gang.members >= gang.min_members) return std::nullopt;
  if (gang.below_minimum_since) return gang.below_minimum_since;
  if (gang.member_faults.empty()) return std::nullopt;
  const auto earliest = std::min_element(gang.member_faults.begin(), gang.member_faults.end(),
                                         [](const MemberFault& a, const MemberFault& b) { return a.since < b.since; });
  return earliest->since;
}

GangFault FromMember(const MemberFault& f, const NodeFaultIndex& nodes) {
  const bool node_to_blame = !f.node.empty() && nodes.count(f.node) > 0;
  return {f.cause, f.node, MemberFaultMessage(f), f.since, f.since, false, node_to_blame, !node_to_blame};
}

// A fenced GPU is the cluster's fault, not the gang's, and leaves the node's other GPUs usable. Under
// NoSchedule the gang still runs and can checkpoint; NoExecute has Kubernetes evict its pods.
GangFault FromDevice(const DeviceFault& f) {
  const bool evicting = f.taint.size() >= 10 && f.taint.compare(f.taint.size() - 10, 10, ":NoExecute") == 0;
  return {FaultCause::kDeviceTaint, f.node, DeviceFaultMessage(f), f.since, f.since, !evicting, false, false};
}

void AddGangFaults(const GangHealth& gang, const NodeFaultIndex& nodes, double now, std::vector<GangFault>& out) {
  for (const DeviceFault& f : gang.device_faults) out.push_back(FromDevice(f));
  // With replacement members, or a controller that mends its members itself, a lost member is no fault
  // of its own: the gang waits for the replacement under the below-minimum grace (past which the
  // controller did not mend it, and it is restarted as any gang).
  if (!gang.config.replace_members && !gang.controller_mends_members) {
    for (const MemberFault& f : gang.member_faults) out.push_back(FromMember(f, nodes));
  }
  if (const std::optional<double> since = BelowMinimumSince(gang)) {
    out.push_back({FaultCause::kBelowMinimum, "", BelowMinimumMessage(gang.members, gang.min_members, now - *since),
                   *since, *since + std::max(0.0, gang.config.below_minimum_grace_seconds), false, false, true});
  }
}

}  // namespace

NodeFaultIndex IndexByNode(const std::vector<NodeFault>& faults) {
  NodeFaultIndex index;
  for (const NodeFault& f : faults) index[f.node].push_back(&f);
  return index;
}

GangFaults FaultsOf(const GangHealth& gang, const NodeFaultIndex& nodes, double now) {
  std::vector<GangFault> all;
  AddNodeFaults(gang, nodes, now, all);
  AddGangFaults(gang, nodes, now, all);
  GangFaults out;
  for (GangFault& f : all) (now >= f.counts_at ? out.counted : out.pending).push_back(std::move(f));
  return out;
}

}  // namespace gangplank::engine

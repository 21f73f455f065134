// What went wrong for a running gang, as fault recovery names it: the cause on every decision, the label
// of the restart metrics and the suffix of condition and event reasons.
#pragma once

#include <string_view>

namespace gangplank::engine {

enum class FaultCause {
  kMemberFailed,     // A member pod ended Failed.
  kMemberDeleted,    // A member pod was deleted while its gang ran, not by gangplank.
  kNodeNotReady,     // A member's node Ready=False/Unknown or tainted not-ready: the host is gone.
  kNodeUnreachable,  // A member's node tainted node.kubernetes.io/unreachable: the host is gone.
  kNodeCondition,    // A member's node shows an unhealthy condition (node-problem-detector, GPU health).
  kGpuShortfall,     // A member's node offers fewer GPUs than its pods hold (devices marked unhealthy).
  kQuarantine,       // A member's node was cordoned and tainted by a GPU-health quarantine.
  kDeviceTaint,      // A GPU a member holds carries a NoSchedule or NoExecute DRA device taint.
  kBelowMinimum,     // The gang ran below its minimum members for too long.
};

// "MemberFailed", "NodeNotReady", ...: stable, part of gangplank's API (metric labels, reasons).
std::string_view FaultCauseName(FaultCause cause);

// The host is gone with its pods: nobody is left there to checkpoint, and a kubelet restart looks the
// same for a while, so these count only after a grace.
bool IsLostHost(FaultCause cause);

// Caused by a node (as opposed to a member or the gang's size): the gang is planned again without it.
bool IsNodeCause(FaultCause cause);

}  // namespace gangplank::engine

#include "engine/recovery/fault_message.h"

#include <algorithm>
#include <cmath>

namespace gangplank::engine {
namespace {

// Whole seconds, never negative (a clock a little ahead of the signal's is no negative outage).
std::string Seconds(double s) { return std::to_string(static_cast<long long>(std::floor(std::max(0.0, s)))) + " s"; }

}  // namespace

std::string NodeFaultMessage(const NodeFault& fault, double now) {
  const std::string node = "node " + fault.node;
  switch (fault.cause) {
    case FaultCause::kNodeNotReady: return node + " NotReady for " + Seconds(now - fault.since);
    case FaultCause::kNodeUnreachable: return node + " unreachable for " + Seconds(now - fault.since);
    case FaultCause::kGpuShortfall:
      return "GPU allocatable on " + fault.node + " fell to " + std::to_string(fault.gpus_allocatable) +
             ", gangs hold " + std::to_string(fault.gpus_allocated);
    case FaultCause::kQuarantine: return node + " quarantined (" + fault.signal + ")";
    default: return node + " unhealthy (" + fault.signal + ")";
  }
}

std::string MemberFaultMessage(const MemberFault& fault) {
  const std::string what = fault.cause == FaultCause::kMemberDeleted ? " deleted while its gang ran" : " Failed";
  return "member " + fault.pod + what + (fault.node.empty() ? "" : " on node " + fault.node);
}

std::string DeviceFaultMessage(const DeviceFault& fault) {
  return "GPU " + fault.device + " of member " + fault.pod + " on node " + fault.node + " tainted " + fault.taint;
}

std::string BelowMinimumMessage(int members, int min_members, double seconds) {
  return std::to_string(members) + " of " + std::to_string(min_members) + " members running for " + Seconds(seconds);
}

}  // namespace gangplank::engine

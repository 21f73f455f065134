#include "engine/recovery/fault_cause.h"

namespace gangplank::engine {

std::string_view FaultCauseName(FaultCause cause) {
  switch (cause) {
    case FaultCause::kMemberFailed: return "MemberFailed";
    case FaultCause::kMemberDeleted: return "MemberDeleted";
    case FaultCause::kNodeNotReady: return "NodeNotReady";
    case FaultCause::kNodeUnreachable: return "NodeUnreachable";
    case FaultCause::kNodeCondition: return "NodeCondition";
    case FaultCause::kGpuShortfall: return "GpuShortfall";
    case FaultCause::kQuarantine: return "Quarantine";
    case FaultCause::kDeviceTaint: return "DeviceTainted";
    case FaultCause::kBelowMinimum: return "BelowMinimum";
  }
  return "Unknown";
}

bool IsLostHost(FaultCause cause) {
  return cause == FaultCause::kNodeNotReady || cause == FaultCause::kNodeUnreachable;
}

bool IsNodeCause(FaultCause cause) {
  return cause != FaultCause::kMemberFailed && cause != FaultCause::kMemberDeleted &&
         cause != FaultCause::kBelowMinimum && cause != FaultCause::kDeviceTaint;
}

}  // namespace gangplank::engine

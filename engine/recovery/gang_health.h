// A running gang as fault recovery sees it: where it runs, its members' own faults, and what the caller
// remembers of earlier restarts and checkpoint requests (the engine keeps no state between calls).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/recovery/fault_cause.h"
#include "engine/recovery/recovery_config.h"

namespace gangplank::engine {

// A member's own fault: it Failed, or was deleted while its gang ran (not by gangplank).
struct MemberFault {
  std::string pod;
  std::string node;  // Where it ran; may be empty.
  FaultCause cause = FaultCause::kMemberFailed;  // kMemberFailed or kMemberDeleted.
  double since = 0;
};

// A GPU a member holds carries a NoSchedule or NoExecute device taint (Dynamic Resource Allocation): a fault of
// this gang alone, not of the node, whose other GPUs serve on (the fenced one offers no capacity).
struct DeviceFault {
  std::string pod;
  std::string node;
  std::string device;  // "<driver>/<pool>/<device>"
  std::string taint;   // "key=value:Effect"
  double since = 0;
};

struct GangHealth {
  std::string name;
  RecoveryConfig config;           // Its pool's, overridden by its queue's.
  std::vector<std::string> nodes;  // Where its members run (repeats allowed).
  int members = 0;                 // Members running now.
  int min_members = 0;             // Its minimum size.
  // Since when it runs below its minimum (the caller keeps the first time it saw it so, and forgets it
  // once the gang is whole again). Unset with members below the minimum: the earliest member fault.
  std::optional<double> below_minimum_since;
  std::vector<MemberFault> member_faults;
  std::vector<DeviceFault> device_faults;
  int restarts = 0;                        // Restarts done so far (the caller counts each kRestart).
  std::optional<double> last_restart_at;   // When the last one was carried out.
  std::optional<double> checkpoint_deadline;  // The deadline it was last asked to checkpoint by.
  bool checkpoint_asked_for_fault = false;    // That request was fault recovery's (not a notice's).
  bool checkpoint_done = false;               // A member acknowledged a checkpoint ...
  std::optional<double> checkpoint_done_at;   // ... at this time, if the acknowledgement says.
  // Its controller restarts or replaces failed members itself (JobSet's failure policy, LeaderWorkerSet's
  // group recreation, the training operators' restart policies, KubeRay's worker replacement): a
  // member's failure or deletion is the controller's to mend, as with replacement members (restarting it
  // too would be a second restart); only a gang left below its minimum past the grace is gangplank's.
  // Its nodes' and devices' faults are still gangplank's.
  bool controller_mends_members = false;
  bool terminating = false;  // Already being evicted: nothing more to do.
  bool failed = false;       // Already failed: nothing more to do.
};

}  // namespace gangplank::engine

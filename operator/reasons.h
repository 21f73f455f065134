// The reasons gangplank writes on conditions and Events: part of its API (users and alerts match on
// them), so each is named once here. CamelCase, as Kubernetes writes reasons.
#pragma once

namespace gangplank::op::reasons {

// Event types.
inline constexpr const char* kNormal = "Normal";
inline constexpr const char* kWarning = "Warning";

// gangplank.io/GangAdmitted on a gang's lead pod (besides the engine's BlockCode names).
inline constexpr const char* kAdmitted = "Admitted";
inline constexpr const char* kGangIncomplete = "GangIncomplete";
inline constexpr const char* kGangSizeUnknown = "GangSizeUnknown";
inline constexpr const char* kGangExceedsPool = "GangExceedsPool";  // Its declared members could never fit.
// Autoscaled pools (operator/autoscaling): nodes asked for the gang; not added in time (also a Warning
// Event); a node the autoscaler adds could never hold a member (also a Warning Event).
inline constexpr const char* kAwaitingNodes = "AwaitingNodes";
inline constexpr const char* kNodesNotProvisioned = "NodesNotProvisioned";
inline constexpr const char* kAutoscalerCannotHold = "AutoscalerCannotHold";
inline constexpr const char* kInvalidPod = "InvalidPod";
inline constexpr const char* kNoPool = "NoPool";
inline constexpr const char* kPoolNotFound = "PoolNotFound";
inline constexpr const char* kOtherPool = "OtherPool";
inline constexpr const char* kNoQueue = "NoQueue";
inline constexpr const char* kQueueInvalid = "QueueInvalid";
inline constexpr const char* kQueueNotFound = "QueueNotFound";
inline constexpr const char* kQueueNotLeaf = "QueueNotLeaf";
inline constexpr const char* kPoolNotAllowed = "PoolNotAllowed";
inline constexpr const char* kQueueForbidden = "QueueForbidden";  // The namespace or priority may not use it.

// Ready on GPUPools and Queues.
inline constexpr const char* kReady = "Ready";
inline constexpr const char* kInnerQueue = "InnerQueue";
inline constexpr const char* kNoNodes = "NoNodes";
inline constexpr const char* kOverlappingPools = "OverlappingPools";

// Events on a gang's owner (besides the engine's EvictionKind names).
inline constexpr const char* kAdmissionResumed = "AdmissionResumed";
inline constexpr const char* kAdmissionRolledBack = "AdmissionRolledBack";
inline constexpr const char* kEvictionBlocked = "EvictionBlocked";
inline constexpr const char* kCheckpointRequested = "CheckpointRequested";
inline constexpr const char* kCheckpointWithdrawn = "CheckpointWithdrawn";
inline constexpr const char* kSpotReclaimed = "SpotReclaimed";
inline constexpr const char* kGangRestarted = "GangRestarted";  // Fault recovery restarted it whole.
inline constexpr const char* kGangFailed = "GangFailed";        // Failed for good by fault recovery.
inline constexpr const char* kLeftToController = "LeftToController";  // Its controller restarts it, not gangplank.
inline constexpr const char* kGangIdle = "GangIdle";            // Its GPUs idle past its queue's limit.
inline constexpr const char* kIdleReclaimed = "IdleReclaimed";  // Evicted for idle GPUs, not run again.

// gangplank.io/GPUsIdle on a running gang's lead pod (idle policy Report, Preemptible or Reclaim).
inline constexpr const char* kGpusIdleCondition = "gangplank.io/GPUsIdle";
inline constexpr const char* kIdleGpus = "IdleGPUs";
inline constexpr const char* kGpusBusy = "GPUsBusy";

// Events on a Node.
inline constexpr const char* kTerminationNotice = "TerminationNotice";
inline constexpr const char* kInvalidTerminateAt = "InvalidTerminateAt";

}  // namespace gangplank::op::reasons

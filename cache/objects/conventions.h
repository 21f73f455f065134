// The labels, annotations and resource names gangplank reads from and writes to pods and nodes (see
// extender/README.md and operator/README.md). One place, so the extender, operator and tests agree on
// the spelling.
#pragma once

#include <array>
#include <string_view>

namespace gangplank::cache {

// Pod label: the gang a pod belongs to (unique within the namespace).
inline constexpr std::string_view kGangLabel = "gangplank.io/gang";
// Pod annotation: the gang's minimum member count.
inline constexpr std::string_view kGangSizeAnnotation = "gangplank.io/gang-size";
// Pod label: the queue the pod is charged to.
inline constexpr std::string_view kQueueLabel = "gangplank.io/queue";
// Pod annotation written by the operator's admission plan: the node this pod must land on.
inline constexpr std::string_view kPlannedNodeAnnotation = "gangplank.io/planned-node";
// Pod annotation: allowed GPU models, "|"-separated ("A100|H100"); absent means any.
inline constexpr std::string_view kGpuModelsAnnotation = "gangplank.io/gpu-models";
// Pod label: the GPU pool a pod's gang asks for (when its queue may use several).
inline constexpr std::string_view kPoolLabel = "gangplank.io/pool";
// Pod annotations: topology level keys the gang must, or should, fit inside one domain of.
inline constexpr std::string_view kTopologyRequiredAnnotation = "gangplank.io/topology-required";
inline constexpr std::string_view kTopologyPreferredAnnotation = "gangplank.io/topology-preferred";
// Pod annotation: seconds a gang may wait before the nodes reserved for it are released.
inline constexpr std::string_view kGangTimeoutAnnotation = "gangplank.io/gang-timeout-seconds";
// Scheduling gate the admission webhook adds; the operator removes it when it admits the gang.
inline constexpr std::string_view kAdmissionGate = "gangplank.io/admission";
// Pod annotation the operator writes with the planned node: one id per admission of a gang, so a
// restarted operator can tell a complete plan from a half-written one.
inline constexpr std::string_view kAdmissionIdAnnotation = "gangplank.io/admission-id";
// Pod annotation the operator writes with the plan: its seal (cache/objects/plan_seal.h), HMAC-SHA256 of
// the pod's UID, planned node and admission id under a key only gangplank holds.
inline constexpr std::string_view kPlanSealAnnotation = "gangplank.io/plan-seal";
// Pod annotation: when the last checkpoint of the gang's work was taken (RFC 3339), for lost-work costs.
inline constexpr std::string_view kLastCheckpointAnnotation = "gangplank.io/last-checkpoint";
// Node annotation: when the node goes away (RFC 3339), set by an admin or a script; a termination notice.
inline constexpr std::string_view kTerminateAtAnnotation = "gangplank.io/terminate-at";
// Pod annotation the operator writes on every member of a gang on a node under notice: the deadline
// (RFC 3339) by which the job should checkpoint.
inline constexpr std::string_view kCheckpointRequestedAnnotation = "gangplank.io/checkpoint-requested";
// Pod annotation the operator writes beside the request: why it asks (kCheckpointCause*), so a job can
// tell a notice from a fault, and the operator can take back a request whose fault has gone.
inline constexpr std::string_view kCheckpointCauseAnnotation = "gangplank.io/checkpoint-cause";
inline constexpr std::string_view kCheckpointCauseFault = "Fault";
inline constexpr std::string_view kCheckpointCauseSpotNotice = "SpotNotice";
inline constexpr std::string_view kCheckpointCauseIdleReclaim = "IdleReclaim";
inline constexpr std::string_view kCheckpointCauseBackfillOverrun = "BackfillOverrun";
// Pod annotation a job writes (on any member) when its checkpoint is done; the gang is then evicted.
inline constexpr std::string_view kCheckpointDoneAnnotation = "gangplank.io/checkpoint-done";
// Pod annotation: seconds the job says it runs. A waiting gang that declares it may start on nodes
// reserved for another gang when it will have left before that gang is expected to start there (EASY
// backfill); a running gang's declared end tells the engine when its nodes free up.
inline constexpr std::string_view kExpectedRuntimeAnnotation = "gangplank.io/expected-runtime";
// Label naming what kind of job a pod's gang is, for runtime prediction (gangs of one class in one
// namespace run alike); without it the owner's name stem stands in.
inline constexpr std::string_view kJobClassLabel = "gangplank.io/job-class";
// Pod annotation: "true" on any member keeps the gang's idle GPUs from its idle policy's action (jobs
// idle on purpose), where the policy allows opting out (spec.idlePolicy.allowOptOut).
inline constexpr std::string_view kIdleExemptAnnotation = "gangplank.io/idle-exempt";
// The pod annotations only the operator writes (an admission plan, a checkpoint request). The webhook
// removes them from pods it gates; the chart's ValidatingAdmissionPolicy refuses them from anyone else.
inline constexpr std::array<std::string_view, 5> kOperatorOwnedAnnotations{
    kPlannedNodeAnnotation, kAdmissionIdAnnotation, kPlanSealAnnotation, kCheckpointRequestedAnnotation,
    kCheckpointCauseAnnotation};
// scheduler-plugins' coscheduling label naming a PodGroup (scheduling.x-k8s.io/v1alpha1).
inline constexpr std::string_view kPodGroupLabel = "scheduling.x-k8s.io/pod-group";

// Whole GPUs (the NVIDIA device plugin's resource).
inline constexpr std::string_view kGpuResource = "nvidia.com/gpu";
// A share of one GPU in milli-GPU (1000 = one whole GPU); asked for by GPU-sharing pods.
inline constexpr std::string_view kGpuMilliResource = "gangplank.io/gpu-milli";
// Node label (GPU feature discovery): the GPU model of the node.
inline constexpr std::string_view kGpuProductLabel = "nvidia.com/gpu.product";

}  // namespace gangplank::cache

// The parts of Kubernetes Pod and Node objects gangplank reads (the extender from request bodies, the
// cache from informers). Everything else in the objects (managedFields, images, ...) is skipped.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cache/objects/dra_gpus.h"
#include "engine/node.h"
#include "engine/request.h"

namespace gangplank::cache {

// Resource name -> quantity text, as in a ResourceList ("cpu": "500m").
using ResourceList = std::vector<std::pair<std::string, std::string>>;

struct ContainerResources {
  ResourceList requests;
  ResourceList limits;
  bool sidecar = false;  // An init container with restartPolicy: Always (base/pod_requests.h).
  friend bool operator==(const ContainerResources&, const ContainerResources&) = default;
};

// The controlling owner reference of an object (ownerReferences[] with controller: true).
struct OwnerRef {
  std::string api_version;
  std::string kind;
  std::string name;
  std::string uid;
  friend bool operator==(const OwnerRef&, const OwnerRef&) = default;
};

// A container's state.terminated: how a failed gang member ended, for its events.
struct ContainerExit {
  std::string name;
  int exit_code = 0;
  std::string reason;       // Error, OOMKilled, ContainerCannotRun, ...
  std::string finished_at;  // RFC 3339.
};

// One entry of spec.resourceClaims: a claim shared by name, or one made for the pod from a template.
struct PodClaimRef {
  std::string name;            // The pod's name for it.
  std::string claim_name;      // resourceClaimName
  std::string template_name;   // resourceClaimTemplateName
  friend bool operator==(const PodClaimRef&, const PodClaimRef&) = default;
};

// Whether a pod in this status.phase has finished (Succeeded or Failed) and so holds no resources, as
// kube-scheduler's assigned-pod informer drops such pods. For any pod type (PodInfo, kube::Pod).
bool IsFinishedPhase(std::string_view phase);

struct PodInfo {
  std::string name;
  std::string namespace_;
  std::string uid;
  std::string resource_version;
  std::string creation_timestamp;  // RFC 3339.
  std::optional<OwnerRef> controller;
  std::map<std::string, std::string> labels;
  std::map<std::string, std::string> annotations;
  bool deleting = false;  // metadata.deletionTimestamp is set.

  std::string node_name;  // spec.nodeName: bound when non-empty.
  std::string scheduler_name;
  std::vector<std::string> scheduling_gates;
  std::string pod_group_name;  // spec.schedulingGroup.podGroupName: its native PodGroup (immutable).
  std::int32_t priority = 0;
  // spec.activeDeadlineSeconds: the kubelet ends the pod this long after it starts, so a runtime it
  // declares is kept (unlike an annotation's).
  std::optional<std::int64_t> active_deadline_seconds;
  std::map<std::string, std::string> node_selector;
  // spec.affinity.nodeAffinity has required terms of the pod's own: the release leaves them alone and
  // does not pin the pod to its planned node (ClusterWriter::ReleasePod).
  bool required_node_affinity = false;
  std::vector<engine::Toleration> tolerations;
  std::vector<ContainerResources> containers;
  std::vector<ContainerResources> init_containers;
  std::optional<ContainerResources> pod_resources;  // spec.resources (pod-level requests and limits).
  ResourceList overhead;
  // Dynamic Resource Allocation: the pod's claims, the names of those made from templates
  // (status.resourceClaimStatuses: pod claim name -> ResourceClaim name), and the claim the scheduler
  // made for DRA-backed extended resources (status.extendedResourceClaimStatus.resourceClaimName).
  std::vector<PodClaimRef> resource_claims;
  std::vector<std::pair<std::string, std::string>> claim_statuses;
  std::string extended_resource_claim;
  // What those claims come to in GPUs, filled by the cache's DRA inventory; null when the pod uses none
  // or was read without the inventory.
  std::shared_ptr<const DraDemand> dra;

  std::string phase;  // status.phase: Pending, Running, Succeeded, Failed, Unknown.
  // Why a pod failed, for the events of a failed gang member: status.reason and status.message when
  // the pod failed as a whole (Evicted, DeadlineExceeded), else the first container (of
  // status.containerStatuses, then initContainerStatuses) that terminated with a non-zero exit code.
  std::string reason;
  std::string message;
  std::optional<ContainerExit> failed_container;
  std::string nominated_node_name;

  std::string Key() const { return namespace_ + "/" + name; }

  // A label's or annotation's value; "" when the pod has none by that name.
  std::string Label(std::string_view key) const;
  std::string Annotation(std::string_view key) const;
  bool HasAnnotation(std::string_view key) const { return annotations.count(std::string(key)) > 0; }
  // The gangplank.io/queue label, unset when the pod has none. An empty one is kept: it names no
  // queue but still keeps the namespace's from applying (QueueResolver).
  std::optional<std::string> QueueLabel() const;
  // The node the operator's admission plan pinned the pod to (gangplank.io/planned-node); "" when none.
  std::string PlannedNode() const;
  // Held by the admission webhook's scheduling gate (gangplank.io/admission) until its gang is admitted.
  bool HasAdmissionGate() const;
  // Succeeded or Failed: a finished pod holds nothing on its node.
  bool Finished() const { return IsFinishedPhase(phase); }
};

// What a node condition says beyond its status: why, and since when (for fault events and graces).
struct ConditionDetail {
  std::string reason;
  std::string message;
  std::string last_transition_time;  // RFC 3339.
};

struct NodeInfo {
  std::string name;
  std::map<std::string, std::string> labels;
  std::map<std::string, std::string> annotations;
  std::map<std::string, std::string> conditions;  // status.conditions: type -> status ("True", ...)
  // status.conditions: type -> reason, message, lastTransitionTime, where the source keeps them.
  std::map<std::string, ConditionDetail> condition_details;
  ResourceList allocatable;
  std::vector<engine::Taint> taints;
  // GPUs from ResourceSlices of the classes gangplank counts (beside allocatable's device-plugin GPUs).
  NodeDraGpus dra;
  // spec.taints[].timeAdded (RFC 3339) by taint key, the earliest when a key has several effects. The
  // node controller writes it on its NoExecute taints only.
  std::map<std::string, std::string> taint_time_added;
  bool unschedulable = false;
};

}  // namespace gangplank::cache

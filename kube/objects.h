// Compact typed views of the objects the project caches. Informers hold these, not JSON DOMs: a pod
// keeps only what scheduling and reconciling need (the bar is <= 2 KB resident per cached pod).
// Each type has a Codec that decodes it straight from simdjson On-Demand values (list pages, watch
// events) without building a DOM.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <simdjson.h>

#include "kube/compact_string_map.h"

namespace gangplank::kube {

// Malformed object JSON (wrong type for a known field, truncated document).
class DecodeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

using StringPairs = CompactStringMap;

struct OwnerReference {
  std::string api_version;
  std::string kind;
  std::string name;
  std::string uid;
  bool controller = false;
};

struct ObjectMeta {
  std::string name;
  std::string namespace_;
  std::string uid;
  std::string resource_version;  // opaque: compare for equality only
  int64_t generation = 0;
  std::string creation_timestamp;
  std::string deletion_timestamp;  // empty unless being deleted
  StringPairs labels;
  StringPairs annotations;
  std::vector<OwnerReference> owner_references;

  // "namespace/name", or "name" for cluster-scoped objects (client-go's MetaNamespaceKeyFunc).
  std::string key() const { return namespace_.empty() ? name : namespace_ + "/" + name; }
};

// Resource amount in milli-units ("100m" cpu = 100, "1Gi" memory = 1073741824000).
struct ResourceAmount {
  std::string name;
  int64_t milli = 0;
};
const ResourceAmount* FindAmount(const std::vector<ResourceAmount>& amounts, std::string_view name);

struct Toleration {
  std::string key;
  std::string op;  // "Equal" (default) or "Exists"
  std::string value;
  std::string effect;
};

// A container that terminated with a non-zero exit code (status.containerStatuses[].state.terminated).
struct ContainerExit {
  std::string name;
  int32_t exit_code = 0;
  std::string reason;       // Error, OOMKilled, ...
  std::string finished_at;  // RFC 3339; "" when null.
};

// status.reason and status.message (Evicted, DeadlineExceeded), and the first container
// (containerStatuses, then initContainerStatuses) that terminated non-zero.
struct PodFailure {
  std::string reason;
  std::string message;
  std::optional<ContainerExit> container;
};

// spec.resourceClaims[]: a claim shared by name, or one made for the pod from a template.
struct PodResourceClaim {
  std::string name;
  std::string claim_name;
  std::string template_name;
};

// Dynamic Resource Allocation on a pod: its claims and what the scheduler and controllers made of them.
// Null on pods that use none (nearly every pod pays a pointer, not three vectors).
struct PodClaims {
  std::vector<PodResourceClaim> claims;
  // status.resourceClaimStatuses: the pod's claim name -> the ResourceClaim made from its template.
  std::vector<std::pair<std::string, std::string>> statuses;
  // status.extendedResourceClaimStatus.resourceClaimName: the claim serving DRA-backed extended resources.
  std::string extended_resource_claim;
};

struct Pod {
  ObjectMeta meta;  // Its annotations: gangplank.io/ ones only (a tenant's to write, and all that is read).
  std::string node_name;
  std::string scheduler_name;
  std::string phase;
  std::string priority_class_name;
  int32_t priority = 0;
  std::optional<std::int64_t> active_deadline_seconds;  // spec.activeDeadlineSeconds: the kubelet ends it then.
  std::vector<std::string> scheduling_gates;
  // spec.schedulingGroup.podGroupName: the native PodGroup (scheduling.k8s.io) the pod joins; immutable.
  std::string pod_group_name;
  // Effective pod request as Kubernetes computes it (base/pod_requests.h: sidecars, pod-level resources,
  // overhead), a container's limit standing in for a missing request (the API server's defaulting, which
  // not every client relies on).
  std::vector<ResourceAmount> requests;
  std::shared_ptr<const PodClaims> claims;
  StringPairs node_selector;
  // spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution is set (its terms are left
  // to kube-scheduler, which applies them).
  bool required_node_affinity = false;
  std::vector<Toleration> tolerations;
  StringPairs conditions;  // type -> status ("True" | "False" | "Unknown")
  // Why the pod failed, for a failed gang member's events; null for a pod that says nothing of it (nearly
  // every pod pays a pointer, not three strings).
  std::shared_ptr<const PodFailure> failure;
};

struct Taint {
  std::string key;
  std::string value;
  std::string effect;
  std::string time_added;  // RFC 3339; the node controller writes it on its NoExecute taints only.
};

// What a node condition says beyond its status, for fault events and graces.
struct NodeConditionDetail {
  std::string type;
  std::string reason;
  std::string message;
  std::string last_transition_time;  // RFC 3339.
};

struct Node {
  ObjectMeta meta;
  bool unschedulable = false;
  std::vector<Taint> taints;
  std::vector<ResourceAmount> capacity;
  std::vector<ResourceAmount> allocatable;
  StringPairs conditions;  // type -> status
  std::vector<NodeConditionDetail> condition_details;  // In status.conditions' order.
};

// Any other object: metadata plus the raw JSON (leases, PDBs, CRDs, custom resources).
struct GenericObject {
  ObjectMeta meta;
  std::string json;
};

// Parses a Kubernetes quantity ("100m", "2Gi", "1.5", "1e3", "500M") into milli-units. nullopt if malformed
// or out of range.
std::optional<int64_t> ParseQuantityMilli(std::string_view text);

template <class T>
struct Codec;

template <>
struct Codec<Pod> {
  static void Decode(simdjson::ondemand::value value, Pod& out);
};
template <>
struct Codec<Node> {
  static void Decode(simdjson::ondemand::value value, Node& out);
};
template <>
struct Codec<GenericObject> {
  static void Decode(simdjson::ondemand::value value, GenericObject& out);
};

// Decodes only metadata of an object (used for BOOKMARK events and by the codecs).
void DecodeObjectMeta(simdjson::ondemand::value value, ObjectMeta& out);

}  // namespace gangplank::kube

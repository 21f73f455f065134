#include "cache/feed/object_conversion.h"

#include <string>

#include "cache/objects/conventions.h"

namespace gangplank::cache {
namespace {

std::map<std::string, std::string> ToMap(const kube::StringPairs& pairs) {
  std::map<std::string, std::string> out;
  for (const auto& [key, value] : pairs) out.emplace(std::string(key), std::string(value));
  return out;
}

// The client already reduced quantities to milli-units; "<n>m" hands them to our quantity parser
// unchanged in value.
ResourceList ToResourceList(const std::vector<kube::ResourceAmount>& amounts) {
  ResourceList out;
  for (const auto& a : amounts) out.emplace_back(a.name, std::to_string(a.milli) + "m");
  return out;
}

}  // namespace

PodInfo ToPodInfo(const kube::Pod& p, const PlanSeal* seal, const dra::GpuInventory* gpus) {
  PodInfo pod;
  pod.name = p.meta.name;
  pod.namespace_ = p.meta.namespace_;
  pod.uid = p.meta.uid;
  pod.resource_version = p.meta.resource_version;
  pod.creation_timestamp = p.meta.creation_timestamp;
  for (const kube::OwnerReference& ref : p.meta.owner_references) {
    if (ref.controller) pod.controller = OwnerRef{ref.api_version, ref.kind, ref.name, ref.uid};
  }
  pod.labels = ToMap(p.meta.labels);
  pod.annotations = ToMap(p.meta.annotations);
  pod.deleting = !p.meta.deletion_timestamp.empty();
  pod.node_name = p.node_name;
  pod.scheduler_name = p.scheduler_name;
  pod.pod_group_name = p.pod_group_name;
  pod.scheduling_gates = p.scheduling_gates;
  pod.priority = p.priority;
  pod.active_deadline_seconds = p.active_deadline_seconds;
  pod.phase = p.phase;
  if (const kube::PodFailure* f = p.failure.get()) {
    pod.reason = f->reason;
    pod.message = f->message;
    if (const auto& c = f->container) pod.failed_container = ContainerExit{c->name, c->exit_code, c->reason, c->finished_at};
  }
  pod.node_selector = ToMap(p.node_selector);
  pod.required_node_affinity = p.required_node_affinity;
  for (const kube::Toleration& t : p.tolerations) {
    pod.tolerations.push_back(engine::Toleration{t.key, t.op.empty() ? "Equal" : t.op, t.value, t.effect});
  }
  ContainerResources effective;  // kube::Pod holds the effective request already.
  effective.requests = ToResourceList(p.requests);
  pod.containers.push_back(std::move(effective));
  if (const kube::PodClaims* claims = p.claims.get()) {
    for (const kube::PodResourceClaim& c : claims->claims) pod.resource_claims.push_back({c.name, c.claim_name, c.template_name});
    pod.claim_statuses = claims->statuses;
    pod.extended_resource_claim = claims->extended_resource_claim;
  }
  if (gpus != nullptr) pod.dra = gpus->DemandOf(pod);
  DropUnsealedPlan(pod, seal);
  return pod;
}

NodeInfo ToNodeInfo(const kube::Node& n, const dra::GpuInventory* gpus) {
  NodeInfo node;
  node.name = n.meta.name;
  node.labels = ToMap(n.meta.labels);
  node.annotations = ToMap(n.meta.annotations);
  node.conditions = ToMap(n.conditions);
  node.allocatable = ToResourceList(n.allocatable);
  node.unschedulable = n.unschedulable;
  for (const auto& t : n.taints) {
    node.taints.push_back({t.key, t.value, t.effect});
    if (t.time_added.empty()) continue;
    std::string& added = node.taint_time_added[t.key];
    // RFC 3339 in UTC with second precision, as the API server writes it, orders as text.
    if (added.empty() || t.time_added < added) added = t.time_added;
  }
  for (const auto& c : n.condition_details) {
    node.condition_details[c.type] = ConditionDetail{c.reason, c.message, c.last_transition_time};
  }
  if (gpus != nullptr) node.dra = gpus->GpusOf(node.name);
  return node;
}

std::string NamespaceQueueOf(const kube::GenericObject& ns) {
  const auto queue = ns.meta.labels.find(kQueueLabel);
  return queue ? std::string(*queue) : std::string();
}

}  // namespace gangplank::cache

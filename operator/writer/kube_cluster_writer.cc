#include "operator/writer/kube_cluster_writer.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "cache/feed/gangplank_resources.h"
#include "cache/feed/object_conversion.h"
#include "cache/objects/conventions.h"
#include "kube/api_error.h"
#include "kube/conditions.h"
#include "kube/list_watch.h"
#include "base/time_format.h"
#include "logging/json_log.h"
#include "operator/writer/pod_drift.h"

namespace gangplank::op {
namespace {

using Json = nlohmann::json;

const kube::ResourceDescriptor& Gangplank(const std::string& plural) {
  return plural == "queues" ? cache::resources::queues() : cache::resources::gpu_pools();
}

std::string Key(const cache::PodInfo& pod) { return pod.namespace_ + "/" + pod.name; }

// A strategic-merge patch of one status condition (conditions merge by type): lastTransitionTime moves
// only when the status flipped.
Json ConditionPatch(const ConditionWrite& c) {
  Json condition{{"type", c.type}, {"status", c.status}, {"reason", c.reason}, {"message", c.message}};
  if (c.status_changed) condition["lastTransitionTime"] = base::FormatTime(std::chrono::system_clock::now());
  return Json{{"status", {{"conditions", Json::array({condition})}}}};
}

}  // namespace

cache::PodInfo PodInfoFromJson(const Json& pod, const cache::PlanSeal* seal, const cache::dra::GpuInventory* gpus) {
  kube::ObjectDecoder<kube::Pod> decoder;
  return cache::ToPodInfo(decoder.DecodeObject(pod.dump()), seal, gpus);
}

KubeClusterWriter::KubeClusterWriter(std::shared_ptr<kube::Client> client, std::string component,
                                     std::shared_ptr<const cache::PlanSeal> seal,
                                     std::shared_ptr<kube::Client> reporting_client, const cache::dra::GpuInventory* gpus)
    : client_(client),
      reporting_(reporting_client ? std::move(reporting_client) : client),
      events_(reporting_, std::move(component)),
      seal_(std::move(seal)),
      gpus_(gpus) {}

cache::PodInfo KubeClusterWriter::PatchPod(const cache::PodInfo& pod, const Json& patch) {
  try {
    return PatchAt(pod, patch);
  } catch (const kube::ConflictError& e) {
    // Refused because the pod moved. When only its status did (pod_drift.h), the same patch is made on
    // the version just read, once; otherwise the caller plans again.
    const std::optional<cache::PodInfo> now = ReadPod(pod.namespace_, pod.name);
    if (!now) throw PodChanged("pod " + Key(pod) + " is gone");
    if (!OnlyStatusMoved(pod, *now)) {
      throw PodChanged("pod " + Key(pod) + " changed since resourceVersion " + pod.resource_version + ": " + e.message());
    }
    try {
      return PatchAt(*now, patch);
    } catch (const kube::ConflictError& again) {
      throw PodChanged("pod " + Key(pod) + " changed twice while being written: " + again.message());
    }
  }
}

cache::PodInfo KubeClusterWriter::PatchAt(const cache::PodInfo& pod, Json patch) {
  // A resourceVersion in a merge patch is a precondition: the API server answers 409 when it moved.
  patch["metadata"]["resourceVersion"] = pod.resource_version;
  try {
    return PodInfoFromJson(client_->Patch(kube::resources::Pods(), pod.namespace_, pod.name, kube::PatchType::kMerge, patch), seal_.get(), gpus_);
  } catch (const kube::NotFoundError&) {
    throw PodChanged("pod " + Key(pod) + " is gone");
  }
}

Json KubeClusterWriter::PlanPatch(const cache::PodInfo& pod, const std::string& node, const std::string& admission_id) const {
  Json patch;
  patch["metadata"]["annotations"][std::string(cache::kPlannedNodeAnnotation)] = node;
  patch["metadata"]["annotations"][std::string(cache::kAdmissionIdAnnotation)] = admission_id;
  if (seal_) patch["metadata"]["annotations"][std::string(cache::kPlanSealAnnotation)] = seal_->Sign(pod.uid, node, admission_id);
  if (pod.active_deadline_seconds) patch["spec"]["activeDeadlineSeconds"] = *pod.active_deadline_seconds;
  if (auto keep = pod.annotations.find(kDoNotDisruptAnnotation); keep != pod.annotations.end()) {
    patch["metadata"]["annotations"][kDoNotDisruptAnnotation] = keep->second;
  }
  return patch;
}

Json KubeClusterWriter::ReleasePatch(const cache::PodInfo& pod, const std::string& node) {
  // Gates may only be removed after creation; the list is replaced by what remains of it, which the
  // resourceVersion precondition guarantees is what we read.
  Json gates = Json::array();
  for (const std::string& gate : pod.scheduling_gates) {
    if (gate != cache::kAdmissionGate) gates.push_back({{"name", gate}});
  }
  Json patch;
  patch["spec"]["schedulingGates"] = std::move(gates);
  // A gated pod may be given required node affinity where it has none (Kubernetes' mutable scheduling
  // directives), so the write that ungates it can pin it. A term of metadata.name alone is what
  // kube-scheduler's NodeAffinity PreFilter narrows the cycle to.
  if (!node.empty() && !pod.required_node_affinity) {
    const Json term = {{"matchFields", Json::array({{{"key", "metadata.name"}, {"operator", "In"}, {"values", {node}}}})}};
    patch["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] = {{"nodeSelectorTerms", Json::array({term})}};
  }
  return patch;
}

cache::PodInfo KubeClusterWriter::PlanPod(const cache::PodInfo& pod, const std::string& node,
                                          const std::string& admission_id) {
  return PatchPod(pod, PlanPatch(pod, node, admission_id));
}

cache::PodInfo KubeClusterWriter::UnplanPod(const cache::PodInfo& pod) {
  Json patch;
  patch["metadata"]["annotations"][std::string(cache::kPlannedNodeAnnotation)] = nullptr;
  patch["metadata"]["annotations"][std::string(cache::kAdmissionIdAnnotation)] = nullptr;
  patch["metadata"]["annotations"][std::string(cache::kPlanSealAnnotation)] = nullptr;
  return PatchPod(pod, patch);
}

cache::PodInfo KubeClusterWriter::ReleasePod(const cache::PodInfo& pod) {
  return PatchPod(pod, ReleasePatch(pod, pod.PlannedNode()));
}

cache::PodInfo KubeClusterWriter::PlanAndReleasePod(const cache::PodInfo& pod, const std::string& node,
                                                    const std::string& admission_id) {
  Json patch = PlanPatch(pod, node, admission_id);
  patch.merge_patch(ReleasePatch(pod, node));
  return PatchPod(pod, patch);
}

std::optional<cache::PodInfo> KubeClusterWriter::ReadPod(const std::string& namespace_, const std::string& name) {
  auto pod = client_->TryGet(kube::resources::Pods(), namespace_, name);
  if (!pod) return std::nullopt;
  return PodInfoFromJson(*pod, seal_.get(), gpus_);
}

cache::PodInfo KubeClusterWriter::AnnotatePod(const cache::PodInfo& pod, const AnnotationEdits& edits) {
  Json patch;
  patch["metadata"]["annotations"] = Json::object();
  for (const auto& [key, value] : edits) patch["metadata"]["annotations"][key] = value ? Json(*value) : Json(nullptr);
  try {
    return PodInfoFromJson(client_->Patch(kube::resources::Pods(), pod.namespace_, pod.name, kube::PatchType::kMerge, patch), seal_.get(), gpus_);
  } catch (const kube::NotFoundError&) {
    throw PodChanged("pod " + Key(pod) + " is gone");
  }
}

EvictResult KubeClusterWriter::DeletePod(const cache::PodInfo& pod, int grace_seconds) {
  kube::DeleteOptions options;
  options.grace_period_seconds = grace_seconds;
  options.precondition_uid = pod.uid;
  try {
    return client_->Remove(kube::resources::Pods(), pod.namespace_, pod.name, options) ? EvictResult::kEvicted
                                                                                        : EvictResult::kGone;
  } catch (const kube::ConflictError&) {
    return EvictResult::kGone;  // The UID precondition failed: that pod is gone.
  }
}

cache::PodInfo KubeClusterWriter::CreatePod(const Json& pod) {
  return PodInfoFromJson(client_->Create(kube::resources::Pods(), pod.at("metadata").at("namespace").get<std::string>(), pod),
                         seal_.get(), gpus_);
}

EvictResult KubeClusterWriter::EvictPod(const cache::PodInfo& pod, std::optional<int> grace_seconds) {
  try {
    std::optional<int64_t> grace;
    if (grace_seconds) grace = *grace_seconds;
    return client_->EvictPod(pod.namespace_, pod.name, grace, pod.uid) == kube::EvictOutcome::kEvicted
               ? EvictResult::kEvicted
               : EvictResult::kGone;
  } catch (const kube::DisruptionBudgetError&) {
    return EvictResult::kBlockedByBudget;
  } catch (const kube::ConflictError&) {
    return EvictResult::kGone;  // The UID precondition failed: that pod is gone, a new one took its name.
  }
}

std::vector<Json> KubeClusterWriter::DisruptionBudgets(const std::string& namespace_) {
  const Json list = client_->List(kube::resources::PodDisruptionBudgets(), namespace_);
  std::vector<Json> out;
  if (list.contains("items") && list["items"].is_array()) {
    for (const Json& item : list["items"]) out.push_back(item);
  }
  return out;
}

void KubeClusterWriter::SetPodCondition(const cache::PodInfo& pod, const ConditionWrite& c) {
  try {
    reporting_->Patch(kube::resources::Pods(), pod.namespace_, pod.name, kube::PatchType::kStrategicMerge, ConditionPatch(c), "status");
  } catch (const std::exception& e) {
    spdlog::warn(logging::JsonFields("cannot set pod condition", "pod", Key(pod), "type", c.type, "error", e.what()));
  }
}

void KubeClusterWriter::SetPodGroupCondition(const std::string& namespace_, const std::string& name, const ConditionWrite& c) {
  try {
    reporting_->Patch(kube::resources::PodGroups(), namespace_, name, kube::PatchType::kStrategicMerge, ConditionPatch(c), "status");
  } catch (const std::exception& e) {
    spdlog::warn(logging::JsonFields("cannot set podgroup condition", "podgroup", namespace_ + "/" + name, "type", c.type,
                                     "error", e.what()));
  }
}

void KubeClusterWriter::RecordEvent(const EventWrite& e) {
  kube::ObjectReference ref{e.object.api_version, e.object.kind, e.namespace_, e.object.name, e.object.uid, ""};
  events_.Record(ref, e.type, e.reason, e.message);
}

bool KubeClusterWriter::WriteStatus(const std::string& plural, const std::string& name, const Json& fields,
                                    const std::vector<ConditionWrite>& conditions) {
  try {
    reporting_->WriteStatus(Gangplank(plural), "", name, [&](Json& status, const Json& object) {
      for (const auto& [key, value] : fields.items()) status[key] = value;
      const std::int64_t generation = object.value("/metadata/generation"_json_pointer, std::int64_t{0});
      for (const ConditionWrite& c : conditions) {
        kube::SetCondition(status["conditions"], {c.type, c.status, c.reason, c.message, generation},
                            std::chrono::system_clock::now());
      }
    });
    return true;
  } catch (const std::exception& e) {
    spdlog::warn(logging::JsonFields("cannot write status", "resource", plural, "name", name, "error", e.what()));
    return false;
  }
}

}  // namespace gangplank::op

#include "tools/scheduler-driver/pod_binder.h"

#include <optional>

#include "kube/api_error.h"

namespace gangplank::scheduler_driver {
namespace {

// Where the pod stands now, as the API server says: bound to `node`, elsewhere, gone, or not bound.
struct Lookup {
  std::optional<BindStatus> status;  // nullopt: not bound yet
  std::string bound_to;
};

Lookup LookUp(kube::Client& client, const kube::Pod& pod, const std::string& node) {
  const auto current = client.TryGet(kube::resources::Pods(), pod.meta.namespace_, pod.meta.name);
  if (!current) return {BindStatus::kPodGone, ""};
  const kube::Json& meta = (*current)["metadata"];
  if (meta.value("uid", "") != pod.meta.uid) return {BindStatus::kPodGone, ""};
  if (meta.contains("deletionTimestamp") && !meta["deletionTimestamp"].is_null()) return {BindStatus::kPodGone, ""};
  const std::string bound = current->value("/spec/nodeName"_json_pointer, std::string());
  if (bound.empty()) return {};
  return {bound == node ? BindStatus::kBound : BindStatus::kBoundElsewhere, bound};
}

}  // namespace

BindReport PodBinder::BindThroughApi(const kube::Pod& pod, const std::string& node) {
  try {
    switch (client_->BindPod(pod.meta.namespace_, pod.meta.name, node, pod.meta.uid)) {
      case kube::BindOutcome::kBound:
        return {BindStatus::kBound, ""};
      case kube::BindOutcome::kAlreadyBoundHere:
        return {BindStatus::kAlreadyBoundHere, "pod is already assigned to node \"" + node + "\""};
      case kube::BindOutcome::kPodGone:
        return {BindStatus::kPodGone, "pod is gone or being deleted"};
    }
  } catch (const kube::ConflictError& e) {
    return {BindStatus::kBoundElsewhere, e.what()};
  } catch (const std::exception& e) {
    return {BindStatus::kFailed, e.what()};
  }
  return {BindStatus::kFailed, "unknown binding outcome"};
}

BindReport PodBinder::Bind(const kube::Pod& pod, const std::string& node) {
  if (extender_ == nullptr) return BindThroughApi(pod, node);
  std::string refusal;
  try {
    extender_->Bind(pod, node);
    return {BindStatus::kBound, "", true};
  } catch (const ExtenderError& e) {
    refusal = e.what();
  }
  // The extender may have bound the pod and failed afterwards (a timeout), or refused because it was
  // already bound: look before deciding.
  Lookup now;
  try {
    now = LookUp(*client_, pod, node);
  } catch (const std::exception& e) {
    return {BindStatus::kFailed, refusal + "; reading the pod back failed: " + e.what(), true};
  }
  if (now.status == BindStatus::kBound) {
    const bool conflict = refusal.find("already") != std::string::npos;
    return {conflict ? BindStatus::kAlreadyBoundHere : BindStatus::kBound, refusal, true};
  }
  if (now.status) return {*now.status, refusal, true};
  if (ignorable_) return BindThroughApi(pod, node);  // An ignorable extender's bind error: DefaultBinder.
  return {BindStatus::kFailed, refusal, true};
}

}  // namespace gangplank::scheduler_driver

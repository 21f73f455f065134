#include "tools/scheduler-driver/cluster_view.h"

#include <spdlog/spdlog.h>

#include "logging/json_log.h"
#include "tools/scheduler-driver/pod_candidacy.h"

namespace gangplank::scheduler_driver {

ClusterView::PodChange ClusterView::UpsertPod(const std::shared_ptr<const kube::GenericObject>& raw) {
  const std::string key = raw->meta.key();
  std::lock_guard lock(mu_);
  PodChange change;
  auto it = pods_.find(key);
  if (it != pods_.end()) change.before = it->second.pod;
  try {
    change.after = std::make_shared<const kube::Pod>(decoder_.DecodeObject(raw->json));
  } catch (const std::exception& e) {
    // Left out of scheduling and of node usage, as a pod kube-scheduler could not decode.
    spdlog::warn(logging::JsonFields("cannot decode pod; ignoring it", "pod", key, "error", e.what()));
    if (it != pods_.end()) pods_.erase(it);
    assumed_.Observe(key, nullptr);
    return change;
  }
  pods_.insert_or_assign(key, PodEntry{raw, change.after});
  assumed_.Observe(key, change.after.get());
  return change;
}

ClusterView::PodChange ClusterView::DeletePod(const std::string& key) {
  std::lock_guard lock(mu_);
  PodChange change;
  auto it = pods_.find(key);
  if (it != pods_.end()) {
    change.before = it->second.pod;
    pods_.erase(it);
  }
  assumed_.Observe(key, nullptr);
  return change;
}

std::optional<PodEntry> ClusterView::Pod(const std::string& key) const {
  std::lock_guard lock(mu_);
  auto it = pods_.find(key);
  if (it == pods_.end()) return std::nullopt;
  return it->second;
}

void ClusterView::Assume(const kube::Pod& pod, const std::string& node) {
  std::lock_guard lock(mu_);
  assumed_.Assume(pod, node);
}

void ClusterView::Forget(const std::string& key) {
  std::lock_guard lock(mu_);
  assumed_.Forget(key);
}

bool ClusterView::IsAssumed(const std::string& key) const {
  std::lock_guard lock(mu_);
  return assumed_.Find(key) != nullptr;
}

std::size_t ClusterView::AssumedCount() const {
  std::lock_guard lock(mu_);
  return assumed_.all().size();
}

std::map<std::string, NodeUsage, std::less<>> ClusterView::Usage() const {
  std::lock_guard lock(mu_);
  std::map<std::string, NodeUsage, std::less<>> usage;
  for (const auto& [key, entry] : pods_) {
    if (HoldsNodeResources(*entry.pod)) usage[entry.pod->node_name].Add(*entry.pod);
  }
  for (const auto& [key, assumed] : assumed_.all()) {
    auto it = pods_.find(key);
    const bool informer_has_it_bound = it != pods_.end() && it->second.pod->meta.uid == assumed.pod.meta.uid &&
                                       !it->second.pod->node_name.empty();
    if (!informer_has_it_bound) usage[assumed.pod.node_name].Add(assumed.pod);
  }
  return usage;
}

std::size_t ClusterView::PodCount() const {
  std::lock_guard lock(mu_);
  return pods_.size();
}

}  // namespace gangplank::scheduler_driver

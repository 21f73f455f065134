#include "operator/gangs/ungoverned_pods.h"

#include <algorithm>
#include <exception>

#include "cache/objects/convert.h"

namespace gangplank::op {
namespace {

constexpr std::string_view kUngovernedSuffix = "/:ungoverned";

// Whether any of the pod's resource names or claims could be a GPU: most pods outside gangplank name
// none, and this saves them the full decode of their requests (about 10 µs a pod event).
bool MayAskForGpus(const cache::PodInfo& pod) {
  if (pod.dra || !pod.resource_claims.empty() || !pod.extended_resource_claim.empty()) return true;
  auto names_gpu = [](const cache::ResourceList& list) {
    return std::any_of(list.begin(), list.end(), [](const auto& r) { return r.first.find("gpu") != std::string::npos; });
  };
  auto container_does = [&](const cache::ContainerResources& c) { return names_gpu(c.requests) || names_gpu(c.limits); };
  return std::any_of(pod.containers.begin(), pod.containers.end(), container_does) ||
         std::any_of(pod.init_containers.begin(), pod.init_containers.end(), container_does) ||
         (pod.pod_resources && container_does(*pod.pod_resources));
}

// Whether the pod holds GPUs on its node outside gangplank. A pod whose resources cannot be read holds
// nothing in the cache either.
bool HoldsUngovernedGpus(const cache::PodInfo& pod) {
  if (pod.node_name.empty() || pod.Finished() || !MayAskForGpus(pod)) return false;
  try {
    return cache::ToPodRequest(pod).WantsGpu();
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace

std::string UngovernedKey(std::string_view namespace_) { return std::string(namespace_) + std::string(kUngovernedSuffix); }

bool IsUngovernedKey(std::string_view key) { return key.ends_with(kUngovernedSuffix); }

std::string_view NamespaceOfUngovernedKey(std::string_view key) {
  return IsUngovernedKey(key) ? key.substr(0, key.size() - kUngovernedSuffix.size()) : std::string_view();
}

std::string UngovernedPods::Observe(const cache::PodInfo& pod, bool removed, bool governed) {
  if (pod.uid.empty()) return {};
  const bool holds = !removed && !governed && HoldsUngovernedGpus(pod);
  std::lock_guard lock(mu_);
  const bool known = namespace_of_.count(pod.uid) > 0;
  if (holds == known) return {};
  if (!holds) {
    Erase(pod.uid);
    return pod.namespace_;
  }
  namespace_of_[pod.uid] = pod.namespace_;
  by_namespace_[pod.namespace_].insert(pod.uid);
  return pod.namespace_;
}

bool UngovernedPods::Erase(const std::string& uid) {
  auto it = namespace_of_.find(uid);
  if (it == namespace_of_.end()) return false;
  auto ns = by_namespace_.find(it->second);
  if (ns != by_namespace_.end()) {
    ns->second.erase(uid);
    if (ns->second.empty()) by_namespace_.erase(ns);
  }
  namespace_of_.erase(it);
  return true;
}

std::vector<std::string> UngovernedPods::UidsIn(const std::string& namespace_) const {
  std::lock_guard lock(mu_);
  auto it = by_namespace_.find(namespace_);
  return it == by_namespace_.end() ? std::vector<std::string>{} : std::vector<std::string>(it->second.begin(), it->second.end());
}

std::vector<std::string> UngovernedPods::Namespaces() const {
  std::lock_guard lock(mu_);
  std::vector<std::string> out;
  for (const auto& [ns, uids] : by_namespace_) out.push_back(ns);
  return out;
}

}  // namespace gangplank::op

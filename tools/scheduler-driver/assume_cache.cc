#include "tools/scheduler-driver/assume_cache.h"

namespace gangplank::scheduler_driver {

void AssumeCache::Assume(const kube::Pod& pod, const std::string& node) {
  AssumedPod assumed{pod, std::chrono::steady_clock::now()};
  assumed.pod.node_name = node;
  assumed_.insert_or_assign(pod.meta.key(), std::move(assumed));
}

void AssumeCache::Forget(const std::string& key) { assumed_.erase(key); }

void AssumeCache::Observe(const std::string& key, const kube::Pod* latest) {
  auto it = assumed_.find(key);
  if (it == assumed_.end()) return;
  if (latest == nullptr || latest->meta.uid != it->second.pod.meta.uid || !latest->node_name.empty()) assumed_.erase(it);
}

const AssumedPod* AssumeCache::Find(const std::string& key) const {
  auto it = assumed_.find(key);
  return it == assumed_.end() ? nullptr : &it->second;
}

}  // namespace gangplank::scheduler_driver

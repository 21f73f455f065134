#include "extender/service/unseen_pods.h"

namespace gangplank::extender {

void UnseenPods::Remember(const cache::PodInfo& pod) {
  if (pod.uid.empty() || capacity_ == 0) return;
  std::lock_guard lock(mu_);
  const auto [it, added] = pods_.insert_or_assign(pod.uid, pod);
  if (added) order_.push_back(pod.uid);
  while (pods_.size() > capacity_ && !order_.empty()) {
    pods_.erase(order_.front());
    order_.pop_front();
  }
  if (order_.size() > 2 * capacity_) {  // Taken pods leave stale UIDs behind: drop them now and then.
    std::erase_if(order_, [&](const std::string& uid) { return pods_.count(uid) == 0; });
  }
}

std::optional<cache::PodInfo> UnseenPods::Take(std::string_view uid) {
  std::lock_guard lock(mu_);
  auto it = pods_.find(std::string(uid));
  if (it == pods_.end()) return std::nullopt;
  cache::PodInfo pod = std::move(it->second);
  pods_.erase(it);
  return pod;
}

size_t UnseenPods::size() const {
  std::lock_guard lock(mu_);
  return pods_.size();
}

}  // namespace gangplank::extender

#include "extender/service/preemption_grants.h"

#include <algorithm>

namespace gangplank::extender {

void PreemptionGrants::Record(std::string_view preemptor_uid, const NodeVictimsMap& answer, Clock::time_point now) {
  if (preemptor_uid.empty() || capacity_ == 0) return;
  auto grant = std::make_shared<PreemptionGrant>();
  size_t bytes = 0;
  for (const auto& [node, victims] : answer) {
    bytes += node.size();
    for (std::string_view uid : victims.uids) bytes += uid.size();
  }
  grant->Reserve(answer.size(), answer.all_uids().size(), bytes);
  for (const auto& [node, victims] : answer) grant->AddNode(node, victims.uids);
  std::lock_guard lock(mu_);
  DropExpired(now);
  std::string uid(preemptor_uid);
  if (grant->empty()) {
    grants_.erase(uid);
    return;
  }
  const std::uint64_t sequence = next_sequence_++;
  grants_.insert_or_assign(uid, Entry{std::move(grant), now, sequence});
  order_.push_back({std::move(uid), now, sequence});
  while (grants_.size() > capacity_ && !order_.empty()) {
    EraseIfLive(order_.front());
    order_.pop_front();
  }
  if (order_.size() > 2 * capacity_) {  // Replaced entries leave slots behind: drop them now and then.
    std::erase_if(order_, [&](const Slot& slot) {
      auto it = grants_.find(slot.uid);
      return it == grants_.end() || it->second.sequence != slot.sequence;
    });
  }
}

std::shared_ptr<const PreemptionGrant> PreemptionGrants::Find(std::string_view preemptor_uid, Clock::time_point now) const {
  std::lock_guard lock(mu_);
  if (grants_.empty()) return nullptr;  // The usual case: no preemption in flight.
  auto it = grants_.find(std::string(preemptor_uid));
  if (it == grants_.end() || now - it->second.recorded > ttl_) return nullptr;
  return it->second.grant;
}

size_t PreemptionGrants::size() const {
  std::lock_guard lock(mu_);
  return grants_.size();
}

// order_ is by time, so expired entries are at its front; an entry replaced since is left alone.
void PreemptionGrants::DropExpired(Clock::time_point now) {
  while (!order_.empty() && now - order_.front().recorded > ttl_) {
    EraseIfLive(order_.front());
    order_.pop_front();
  }
}

void PreemptionGrants::EraseIfLive(const Slot& slot) {
  auto it = grants_.find(slot.uid);
  if (it != grants_.end() && it->second.sequence == slot.sequence) grants_.erase(it);
}

}  // namespace gangplank::extender

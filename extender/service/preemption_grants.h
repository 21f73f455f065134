// The extender's recent preempt answers, by preemptor UID, for the filter to read when kube-scheduler
// retries the preemptor (decisions/preemption_grant.h). Bounded twice: an answer is forgotten after
// `ttl` (kube-scheduler retries within seconds of its deletions) and the oldest go first past
// `capacity`; a newer answer for the same preemptor replaces the older.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "extender/decisions/preemption_grant.h"
#include "extender/protocol/node_victims_map.h"

namespace gangplank::extender {

class PreemptionGrants {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr Clock::duration kDefaultTtl = std::chrono::minutes(2);

  explicit PreemptionGrants(Clock::duration ttl = kDefaultTtl, size_t capacity = 1024)
      : ttl_(ttl), capacity_(capacity) {}

  // Keeps the answer's victims (copied: the answer views a request buffer). An empty answer forgets.
  void Record(std::string_view preemptor_uid, const NodeVictimsMap& answer, Clock::time_point now = Clock::now());
  // The live grant for this preemptor, or nullptr.
  std::shared_ptr<const PreemptionGrant> Find(std::string_view preemptor_uid, Clock::time_point now = Clock::now()) const;
  size_t size() const;

 private:
  struct Entry {
    std::shared_ptr<const PreemptionGrant> grant;
    Clock::time_point recorded;
    std::uint64_t sequence;  // Tells a replaced entry's order_ slot from the live one's.
  };
  struct Slot {
    std::string uid;
    Clock::time_point recorded;
    std::uint64_t sequence;
  };
  void EraseIfLive(const Slot& slot);
  void DropExpired(Clock::time_point now);

  const Clock::duration ttl_;
  const size_t capacity_;
  mutable std::mutex mu_;
  std::unordered_map<std::string, Entry> grants_;
  std::deque<Slot> order_;  // Oldest first; may name replaced or forgotten entries.
  std::uint64_t next_sequence_ = 0;
};

}  // namespace gangplank::extender

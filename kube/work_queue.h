// Rate-limited work queue of string keys (client-go util/workqueue semantics):
//  - dedupe: a key added many times before it is processed is processed once;
//  - exclusivity: a key being processed is never handed to a second worker; re-adding it while it is
//    processing marks it dirty and it is re-queued on done();
//  - per-key exponential backoff for add_rate_limited() (base * 2^failures, capped), reset by forget(),
//    combined with an overall token bucket (max of the two delays);
//  - add_after() for delayed requeues, one timer per key (the earliest wins); shutdown() wakes every
//    waiting worker.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "kube/token_bucket.h"

namespace gangplank::kube {

struct WorkQueueOptions {
  std::chrono::milliseconds base_delay{5};
  std::chrono::milliseconds max_delay{1000 * 1000};
  double overall_qps = 10;  // client-go default controller limiter: 10 qps, burst 100
  int overall_burst = 100;
};

class WorkQueue {
 public:
  using Clock = std::chrono::steady_clock;
  explicit WorkQueue(WorkQueueOptions options = {});
  ~WorkQueue();
  WorkQueue(const WorkQueue&) = delete;
  WorkQueue& operator=(const WorkQueue&) = delete;

  void Add(const std::string& key);
  void AddAfter(const std::string& key, std::chrono::milliseconds delay);
  // Adds after the key's backoff delay and counts one more failure for it.
  void AddRateLimited(const std::string& key);
  // Resets the failure count of a key (call after success).
  void Forget(const std::string& key);
  int failures(const std::string& key) const;
  // The delay add_rate_limited would use now, without recording a failure.
  std::chrono::milliseconds PeekBackoff(const std::string& key) const;

  // Blocks until a key is ready or the queue shuts down (nullopt). The caller must call done(key).
  std::optional<std::string> Get();
  // As get(), but gives up after `timeout`.
  std::optional<std::string> GetFor(std::chrono::milliseconds timeout);
  void done(const std::string& key);

  void shutdown();
  bool ShuttingDown() const;
  size_t length() const;  // keys ready to be handed out

 private:
  void AddLocked(const std::string& key);
  void PromoteDueLocked(Clock::time_point now);
  std::optional<std::string> GetUntil(std::optional<Clock::time_point> deadline);

  WorkQueueOptions options_;
  TokenBucket overall_;
  mutable std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<std::string> queue_;
  std::unordered_set<std::string> dirty_;
  std::unordered_set<std::string> processing_;
  std::multimap<Clock::time_point, std::string> waiting_;
  std::unordered_map<std::string, Clock::time_point> waiting_at_;  // Key -> its one entry in waiting_.
  std::unordered_map<std::string, int> failures_;
  bool shutdown_ = false;
};

}  // namespace gangplank::kube

// kube-scheduler's scheduling queue, reduced to what the driver needs: an active queue in PrioritySort
// order and a backoff queue (initial × 2^(failures-1), capped). A change to nodes or pods that may make
// room moves every backing-off pod to the active queue at once and restarts its backoff from the initial
// delay. One pod is in flight at a time (the scheduling cycle is serial); what happens to it meanwhile is
// remembered and applied when its attempt ends. Thread-safe.
#pragma once

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>

#include "tools/scheduler-driver/pod_candidacy.h"

namespace gangplank::scheduler_driver {

class SchedulingQueue {
 public:
  using Clock = std::chrono::steady_clock;

  SchedulingQueue(std::chrono::milliseconds initial_backoff, std::chrono::milliseconds max_backoff);

  // A pod to try now (a new candidate, or one that changed in a way that matters): active at once; its
  // failure count is kept.
  void Add(const QueueOrder& order);
  // No longer a candidate (bound, deleted, gated again).
  void Remove(const std::string& key);
  // Nodes or pods changed: every backing-off pod becomes active, its backoff back at the initial delay.
  void MoveAllToActive();

  // The next pod, best first; waits until one is ready. nullopt once shut down. The caller ends the
  // attempt with Done or Backoff.
  std::optional<std::string> Pop();
  // The attempt is over and needs no retry (bound, or not a candidate any more).
  void Done(const std::string& key);
  // The attempt failed: back off, or retry at once if the cluster changed while it ran.
  void Backoff(const std::string& key);

  void Shutdown();

  // Pods waiting (active or backing off, not the one in flight).
  std::size_t Waiting() const;
  // Consecutive failed attempts of a pod (0 if unknown).
  int Failures(const std::string& key) const;
  // When a backing-off pod becomes ready, if it is backing off.
  std::optional<Clock::time_point> ReadyAt(const std::string& key) const;

 private:
  enum class State { kActive, kBackoff, kInFlight };
  struct Entry {
    QueueOrder order;
    State state = State::kActive;
    int failures = 0;
    Clock::time_point ready_at{};
    bool retry_now = false;  // in flight: an Add or a cluster change came meanwhile
    bool reset = false;      // in flight: the cluster changed meanwhile (backoff restarts)
    bool removed = false;    // in flight: no longer a candidate
  };

  void ActivateLocked(Entry& entry);
  std::chrono::milliseconds DelayFor(int failures) const;

  const std::chrono::milliseconds initial_;
  const std::chrono::milliseconds max_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, Entry> entries_;
  std::set<QueueOrder> active_;
  bool shutdown_ = false;
};

}  // namespace gangplank::scheduler_driver

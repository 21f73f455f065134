#include "tools/scheduler-driver/scheduling_queue.h"

#include <algorithm>

namespace gangplank::scheduler_driver {

SchedulingQueue::SchedulingQueue(std::chrono::milliseconds initial_backoff, std::chrono::milliseconds max_backoff)
    : initial_(initial_backoff), max_(std::max(initial_backoff, max_backoff)) {}

void SchedulingQueue::ActivateLocked(Entry& entry) {
  entry.state = State::kActive;
  active_.insert(entry.order);
  cv_.notify_one();
}

std::chrono::milliseconds SchedulingQueue::DelayFor(int failures) const {
  std::chrono::milliseconds delay = initial_;
  for (int i = 1; i < failures && delay < max_; ++i) delay *= 2;
  return std::min(delay, max_);
}

void SchedulingQueue::Add(const QueueOrder& order) {
  std::lock_guard lock(mu_);
  auto [it, fresh] = entries_.try_emplace(order.key);
  Entry& entry = it->second;
  if (fresh) {
    entry.order = order;
    ActivateLocked(entry);
    return;
  }
  switch (entry.state) {
    case State::kInFlight:
      entry.order = order;
      entry.retry_now = true;
      entry.removed = false;
      break;
    case State::kActive:
      active_.erase(entry.order);
      entry.order = order;
      active_.insert(entry.order);
      break;
    case State::kBackoff:
      entry.order = order;
      ActivateLocked(entry);
      break;
  }
}

void SchedulingQueue::Remove(const std::string& key) {
  std::lock_guard lock(mu_);
  auto it = entries_.find(key);
  if (it == entries_.end()) return;
  if (it->second.state == State::kInFlight) {
    it->second.retry_now = false;
    it->second.removed = true;  // Dropped when its attempt ends.
    return;
  }
  if (it->second.state == State::kActive) active_.erase(it->second.order);
  entries_.erase(it);
}

void SchedulingQueue::MoveAllToActive() {
  std::lock_guard lock(mu_);
  for (auto& [key, entry] : entries_) {
    if (entry.state == State::kInFlight) {
      entry.retry_now = true;
      entry.reset = true;
    } else if (entry.state == State::kBackoff) {
      entry.failures = 0;
      ActivateLocked(entry);
    }
  }
  cv_.notify_all();
}

std::optional<std::string> SchedulingQueue::Pop() {
  std::unique_lock lock(mu_);
  while (!shutdown_) {
    const auto now = Clock::now();
    std::optional<Clock::time_point> next_ready;
    for (auto& [key, entry] : entries_) {
      if (entry.state != State::kBackoff) continue;
      if (entry.ready_at <= now) {
        entry.state = State::kActive;
        active_.insert(entry.order);
      } else if (!next_ready || entry.ready_at < *next_ready) {
        next_ready = entry.ready_at;
      }
    }
    if (!active_.empty()) {
      const std::string key = active_.begin()->key;
      active_.erase(active_.begin());
      Entry& entry = entries_.at(key);
      entry.state = State::kInFlight;
      entry.retry_now = false;
      entry.reset = false;
      entry.removed = false;
      return key;
    }
    if (next_ready) {
      cv_.wait_until(lock, *next_ready);
    } else {
      cv_.wait(lock);
    }
  }
  return std::nullopt;
}

void SchedulingQueue::Done(const std::string& key) {
  std::lock_guard lock(mu_);
  auto it = entries_.find(key);
  if (it == entries_.end() || it->second.state != State::kInFlight) return;
  if (it->second.removed) {
    entries_.erase(it);
  } else if (it->second.retry_now) {
    it->second.failures = 0;
    ActivateLocked(it->second);
  } else {
    entries_.erase(it);
  }
}

void SchedulingQueue::Backoff(const std::string& key) {
  std::lock_guard lock(mu_);
  auto it = entries_.find(key);
  if (it == entries_.end() || it->second.state != State::kInFlight) return;
  Entry& entry = it->second;
  if (entry.removed) {
    entries_.erase(it);
    return;
  }
  if (entry.reset) entry.failures = 0;
  ++entry.failures;
  if (entry.retry_now) {
    ActivateLocked(entry);
    return;
  }
  entry.state = State::kBackoff;
  entry.ready_at = Clock::now() + DelayFor(entry.failures);
  cv_.notify_all();  // The popper recomputes its wake-up time.
}

void SchedulingQueue::Shutdown() {
  std::lock_guard lock(mu_);
  shutdown_ = true;
  cv_.notify_all();
}

std::size_t SchedulingQueue::Waiting() const {
  std::lock_guard lock(mu_);
  std::size_t n = 0;
  for (const auto& [key, entry] : entries_) n += entry.state != State::kInFlight;
  return n;
}

int SchedulingQueue::Failures(const std::string& key) const {
  std::lock_guard lock(mu_);
  auto it = entries_.find(key);
  return it == entries_.end() ? 0 : it->second.failures;
}

std::optional<SchedulingQueue::Clock::time_point> SchedulingQueue::ReadyAt(const std::string& key) const {
  std::lock_guard lock(mu_);
  auto it = entries_.find(key);
  if (it == entries_.end() || it->second.state != State::kBackoff) return std::nullopt;
  return it->second.ready_at;
}

}  // namespace gangplank::scheduler_driver

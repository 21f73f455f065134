#include "kube/work_queue.h"

#include <algorithm>
#include <cmath>

namespace gangplank::kube {

WorkQueue::WorkQueue(WorkQueueOptions options)
    : options_(options), overall_(options.overall_qps, options.overall_burst) {}

WorkQueue::~WorkQueue() { shutdown(); }

void WorkQueue::AddLocked(const std::string& key) {
  if (shutdown_ || dirty_.count(key)) return;
  dirty_.insert(key);
  if (processing_.count(key)) return;  // re-queued by done()
  queue_.push_back(key);
  cv_.notify_one();
}

void WorkQueue::Add(const std::string& key) {
  std::lock_guard lock(mutex_);
  AddLocked(key);
}

void WorkQueue::AddAfter(const std::string& key, std::chrono::milliseconds delay) {
  std::lock_guard lock(mutex_);
  if (shutdown_) return;
  if (delay <= std::chrono::milliseconds::zero()) {
    AddLocked(key);
    return;
  }
  // A key waits once, at its earliest time (client-go's delaying queue): repeated requeues of a busy
  // key must not pile up timers that each fire another round.
  const Clock::time_point at = Clock::now() + delay;
  if (auto it = waiting_at_.find(key); it != waiting_at_.end()) {
    if (it->second <= at) return;
    auto range = waiting_.equal_range(it->second);
    for (auto w = range.first; w != range.second; ++w) {
      if (w->second == key) {
        waiting_.erase(w);
        break;
      }
    }
  }
  waiting_.emplace(at, key);
  waiting_at_[key] = at;
  cv_.notify_all();  // a waiter may need an earlier wake-up
}

std::chrono::milliseconds WorkQueue::PeekBackoff(const std::string& key) const {
  int n;
  {
    std::lock_guard lock(mutex_);
    auto it = failures_.find(key);
    n = it == failures_.end() ? 0 : it->second;
  }
  double d = options_.base_delay.count() * std::pow(2.0, std::min(n, 62));
  return std::chrono::milliseconds(static_cast<long long>(std::min<double>(d, options_.max_delay.count())));
}

void WorkQueue::AddRateLimited(const std::string& key) {
  auto per_item = PeekBackoff(key);
  auto overall = std::chrono::duration_cast<std::chrono::milliseconds>(overall_.Reserve(Clock::now()));
  {
    std::lock_guard lock(mutex_);
    ++failures_[key];
  }
  AddAfter(key, std::max(per_item, overall));
}

void WorkQueue::Forget(const std::string& key) {
  std::lock_guard lock(mutex_);
  failures_.erase(key);
}

int WorkQueue::failures(const std::string& key) const {
  std::lock_guard lock(mutex_);
  auto it = failures_.find(key);
  return it == failures_.end() ? 0 : it->second;
}

void WorkQueue::PromoteDueLocked(Clock::time_point now) {
  while (!waiting_.empty() && waiting_.begin()->first <= now) {
    std::string key = waiting_.begin()->second;
    waiting_.erase(waiting_.begin());
    waiting_at_.erase(key);
    AddLocked(key);
  }
}

std::optional<std::string> WorkQueue::GetUntil(std::optional<Clock::time_point> deadline) {
  std::unique_lock lock(mutex_);
  for (;;) {
    PromoteDueLocked(Clock::now());
    if (!queue_.empty()) {
      std::string key = std::move(queue_.front());
      queue_.pop_front();
      dirty_.erase(key);
      processing_.insert(key);
      return key;
    }
    if (shutdown_) return std::nullopt;
    std::optional<Clock::time_point> wake = deadline;
    if (!waiting_.empty() && (!wake || waiting_.begin()->first < *wake)) wake = waiting_.begin()->first;
    if (wake) {
      if (deadline && Clock::now() >= *deadline && queue_.empty()) return std::nullopt;
      cv_.wait_until(lock, *wake);
    } else {
      cv_.wait(lock);
    }
  }
}

std::optional<std::string> WorkQueue::Get() { return GetUntil(std::nullopt); }

std::optional<std::string> WorkQueue::GetFor(std::chrono::milliseconds timeout) {
  return GetUntil(Clock::now() + timeout);
}

void WorkQueue::done(const std::string& key) {
  std::lock_guard lock(mutex_);
  processing_.erase(key);
  if (dirty_.count(key)) {
    queue_.push_back(key);
    cv_.notify_one();
  }
}

void WorkQueue::shutdown() {
  std::lock_guard lock(mutex_);
  shutdown_ = true;
  cv_.notify_all();
}

bool WorkQueue::ShuttingDown() const {
  std::lock_guard lock(mutex_);
  return shutdown_;
}

size_t WorkQueue::length() const {
  std::lock_guard lock(mutex_);
  return queue_.size();
}

}  // namespace gangplank::kube

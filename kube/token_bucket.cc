#include "kube/token_bucket.h"

#include <algorithm>
#include <thread>

namespace gangplank::kube {

TokenBucket::TokenBucket(double qps, int burst) : qps_(qps), burst_(std::max(1, burst)), tokens_(burst_) {}

void TokenBucket::Refill(Clock::time_point now) {
  if (!started_) {
    started_ = true;
    last_ = now;
    return;
  }
  if (now <= last_) return;
  double elapsed = std::chrono::duration<double>(now - last_).count();
  tokens_ = std::min<double>(burst_, tokens_ + elapsed * qps_);
  last_ = now;
}

TokenBucket::Clock::duration TokenBucket::Reserve(Clock::time_point now) {
  if (qps_ <= 0) return Clock::duration::zero();
  std::lock_guard lock(mutex_);
  Refill(now);
  tokens_ -= 1;  // may go negative: later callers queue behind this reservation
  if (tokens_ >= 0) return Clock::duration::zero();
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(-tokens_ / qps_));
}

bool TokenBucket::TryAcquire(Clock::time_point now) {
  if (qps_ <= 0) return true;
  std::lock_guard lock(mutex_);
  Refill(now);
  if (tokens_ < 1) return false;
  tokens_ -= 1;
  return true;
}

void TokenBucket::Acquire() {
  auto wait = Reserve(Clock::now());
  if (wait > Clock::duration::zero()) std::this_thread::sleep_for(wait);
}

}  // namespace gangplank::kube

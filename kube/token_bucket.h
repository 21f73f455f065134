// Client-side QPS/burst limiter (a token bucket, like client-go's default QPS 5 / burst 10).
// reserve() is pure arithmetic on a caller-supplied time so it is testable without sleeping.
#pragma once

#include <chrono>
#include <mutex>

namespace gangplank::kube {

class TokenBucket {
 public:
  using Clock = std::chrono::steady_clock;

  // qps <= 0 disables limiting. burst is at least 1.
  TokenBucket(double qps, int burst);

  // Takes one token and returns how long the caller must wait before using it (zero if available now).
  Clock::duration Reserve(Clock::time_point now);
  // reserve() with the real clock, then sleeps.
  void Acquire();
  // Non-blocking: takes a token only if one is available now.
  bool TryAcquire(Clock::time_point now);

  double qps() const { return qps_; }
  int burst() const { return burst_; }

 private:
  void Refill(Clock::time_point now);

  const double qps_;
  const int burst_;
  std::mutex mutex_;
  double tokens_;
  Clock::time_point last_;
  bool started_ = false;
};

}  // namespace gangplank::kube

// Exponential backoff with jitter and reset-after-quiet, as the reflector uses for list/watch failures
// (initial 800 ms, factor 2, jitter 1.0, cap 30 s, reset after 2 min without failure).
#pragma once

#include <chrono>
#include <cstdint>
#include <random>

namespace gangplank::kube {

struct BackoffPolicy {
  std::chrono::milliseconds initial{800};
  double factor = 2.0;
  double jitter = 1.0;  // each delay is d * (1 + jitter * U[0,1))
  std::chrono::milliseconds cap{30000};
  std::chrono::milliseconds reset_after{120000};
};

class Backoff {
 public:
  using Clock = std::chrono::steady_clock;
  explicit Backoff(BackoffPolicy policy = {}, uint64_t seed = std::random_device{}());

  // Delay to wait after a failure observed at `now`.
  std::chrono::milliseconds next(Clock::time_point now = Clock::now());
  void Reset() { current_ = std::chrono::milliseconds::zero(); }

 private:
  BackoffPolicy policy_;
  std::mt19937_64 rng_;
  std::chrono::milliseconds current_{0};
  Clock::time_point last_failure_{};
  bool any_failure_ = false;
};

}  // namespace gangplank::kube

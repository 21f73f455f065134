#include "kube/backoff.h"

#include <algorithm>

namespace gangplank::kube {

Backoff::Backoff(BackoffPolicy policy, uint64_t seed) : policy_(policy), rng_(seed) {}

std::chrono::milliseconds Backoff::next(Clock::time_point now) {
  if (any_failure_ && now - last_failure_ > policy_.reset_after) current_ = std::chrono::milliseconds::zero();
  any_failure_ = true;
  last_failure_ = now;
  if (current_ == std::chrono::milliseconds::zero()) {
    current_ = policy_.initial;
  } else {
    current_ = std::min(policy_.cap, std::chrono::milliseconds(static_cast<long long>(current_.count() * policy_.factor)));
  }
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  double jittered = current_.count() * (1.0 + policy_.jitter * unit(rng_));
  return std::chrono::milliseconds(static_cast<long long>(jittered));
}

}  // namespace gangplank::kube

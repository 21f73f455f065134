#include "cache/state/assume_expiry.h"

namespace gangplank::cache {

AssumeExpiry::AssumeExpiry(ClusterState& state, std::chrono::milliseconds period, OnExpired on_expired)
    : state_(state), period_(period), on_expired_(std::move(on_expired)), thread_([this] { Run(); }) {}

AssumeExpiry::~AssumeExpiry() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void AssumeExpiry::Run() {
  std::unique_lock lock(mu_);
  while (!wake_.wait_for(lock, period_, [this] { return stopping_; })) {
    lock.unlock();
    const std::vector<ExpiredAssumption> expired = state_.ExpireAssumed(std::chrono::steady_clock::now());
    if (!expired.empty() && on_expired_) on_expired_(expired);
    lock.lock();
  }
}

}  // namespace gangplank::cache

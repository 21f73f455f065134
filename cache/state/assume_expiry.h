// Expires the cluster-state cache's assumed bindings (ClusterState::ExpireAssumed) on a timer, as
// kube-scheduler's cache cleans up assumed pods every second. One thread, stopped and joined by the
// destructor; `on_expired` (logging, metrics) runs on it, outside the cache's lock.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "cache/state/cluster_state.h"

namespace gangplank::cache {

class AssumeExpiry {
 public:
  using OnExpired = std::function<void(const std::vector<ExpiredAssumption>&)>;

  AssumeExpiry(ClusterState& state, std::chrono::milliseconds period, OnExpired on_expired);
  ~AssumeExpiry();
  AssumeExpiry(const AssumeExpiry&) = delete;
  AssumeExpiry& operator=(const AssumeExpiry&) = delete;

 private:
  void Run();

  ClusterState& state_;
  const std::chrono::milliseconds period_;
  const OnExpired on_expired_;
  std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;  // Last: started once everything above is ready.
};

}  // namespace gangplank::cache

// Leader election on a coordination.k8s.io/v1 Lease (client-go leaderelection semantics):
//  - acquire/renew: GET (create if absent); if another holder's lease is still valid, wait; otherwise PUT
//    with the read resourceVersion (409 = someone else won). Taking over sets acquireTime and bumps
//    leaseTransitions; renewing keeps them.
//  - validity is judged by LOCAL observation time (when this process last saw the record change) plus
//    leaseDurationSeconds — never by comparing renewTime with the local clock, so clock skew is harmless.
//  - the leader renews every retry period; if it cannot renew within the renew deadline it stops
//    acting as leader at once (is_leader() turns false even while a renew call hangs).
//  - optional release on stop: holderIdentity="" and leaseDurationSeconds=1, after leader work stopped.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>

#include "kube/client.h"

namespace gangplank::kube {

struct LeaderElectionConfig {
  std::string namespace_;
  std::string name;
  std::string identity;
  std::chrono::milliseconds lease_duration{15000};
  std::chrono::milliseconds renew_deadline{10000};
  std::chrono::milliseconds retry_period{2000};
  bool release_on_stop = false;
  // Called on the elector's thread; must return quickly (start/stop the leader work elsewhere).
  std::function<void()> on_started_leading;
  std::function<void()> on_stopped_leading;
  std::function<void(const std::string& identity)> on_new_leader;
};

class LeaderElector {
 public:
  using Clock = std::chrono::steady_clock;
  // Throws std::invalid_argument unless lease_duration > renew_deadline > 1.2 * retry_period and the
  // names are set.
  LeaderElector(std::shared_ptr<Client> client, LeaderElectionConfig config);
  ~LeaderElector();
  LeaderElector(const LeaderElector&) = delete;
  LeaderElector& operator=(const LeaderElector&) = delete;

  void Start();
  // Stops campaigning; if leading, stops leading (and releases the lease when configured).
  void Stop();
  // True only while the last successful renewal is younger than the renew deadline.
  bool IsLeader() const;
  std::string ObservedLeader() const;

 private:
  void Run();
  bool TryAcquireOrRenew();
  void LoseLeadership();
  void RecordOwnWrite(const Json& stored, Clock::time_point attempt_start);
  void Release();
  void SleepFor(std::chrono::milliseconds d);
  std::chrono::milliseconds jittered(std::chrono::milliseconds d);

  std::shared_ptr<Client> client_;
  LeaderElectionConfig config_;
  std::atomic<bool> running_{false};
  std::thread thread_;
  mutable std::mutex mutex_;
  std::condition_variable cv_;
  bool leader_ = false;
  Clock::time_point last_renew_{};  // start time of the last successful acquire/renew request
  std::string observed_record_;     // raw spec last seen
  Clock::time_point observed_time_{};
  std::string observed_holder_;
  std::mt19937_64 rng_{std::random_device{}()};
};

}  // namespace gangplank::kube

#include "kube/leader_election.h"

#include "kube/api_error.h"
#include "base/time_format.h"

namespace gangplank::kube {

LeaderElector::LeaderElector(std::shared_ptr<Client> client, LeaderElectionConfig config)
    : client_(std::move(client)), config_(std::move(config)) {
  if (config_.name.empty() || config_.namespace_.empty() || config_.identity.empty()) {
    throw std::invalid_argument("leader election needs a lease namespace, a lease name and an identity");
  }
  if (!(config_.lease_duration > config_.renew_deadline)) {
    throw std::invalid_argument("leader election: lease duration must be greater than the renew deadline");
  }
  if (!(config_.renew_deadline.count() > 1.2 * config_.retry_period.count())) {
    throw std::invalid_argument("leader election: renew deadline must be greater than 1.2 x retry period");
  }
  if (config_.lease_duration < std::chrono::seconds(1)) {
    throw std::invalid_argument("leader election: lease duration must be at least 1 s (leaseDurationSeconds)");
  }
}

LeaderElector::~LeaderElector() { Stop(); }

void LeaderElector::Start() {
  if (running_.exchange(true)) return;
  thread_ = std::thread([this] { Run(); });
}

void LeaderElector::Stop() {
  if (!running_.exchange(false)) return;
  {
    std::lock_guard lock(mutex_);
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

bool LeaderElector::IsLeader() const {
  std::lock_guard lock(mutex_);
  return leader_ && Clock::now() - last_renew_ < config_.renew_deadline;
}

std::string LeaderElector::ObservedLeader() const {
  std::lock_guard lock(mutex_);
  return observed_holder_;
}

std::chrono::milliseconds LeaderElector::jittered(std::chrono::milliseconds d) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  return std::chrono::milliseconds(static_cast<long long>(d.count() * (1.0 + 0.2 * unit(rng_))));
}

void LeaderElector::SleepFor(std::chrono::milliseconds d) {
  std::unique_lock lock(mutex_);
  cv_.wait_for(lock, d, [this] { return !running_; });
}

void LeaderElector::Run() {
  while (running_) {
    bool ok = false;
    try {
      ok = TryAcquireOrRenew();
    } catch (...) {
      ok = false;  // transport or API failure: judged below by the renew deadline
    }
    bool was_leader;
    {
      std::lock_guard lock(mutex_);
      was_leader = leader_;
    }
    if (ok && !was_leader) {
      {
        std::lock_guard lock(mutex_);
        leader_ = true;
      }
      if (config_.on_started_leading) config_.on_started_leading();
    } else if (!ok && was_leader) {
      bool expired;
      {
        std::lock_guard lock(mutex_);
        expired = Clock::now() - last_renew_ >= config_.renew_deadline;
      }
      if (expired) LoseLeadership();
    }
    SleepFor(was_leader || ok ? config_.retry_period : jittered(config_.retry_period));
  }
  bool leading;
  {
    std::lock_guard lock(mutex_);
    leading = leader_;
  }
  if (leading) {
    LoseLeadership();
    if (config_.release_on_stop) Release();
  }
}

void LeaderElector::LoseLeadership() {
  {
    std::lock_guard lock(mutex_);
    leader_ = false;
  }
  if (config_.on_stopped_leading) config_.on_stopped_leading();
}

bool LeaderElector::TryAcquireOrRenew() {
  const auto attempt_start = Clock::now();
  const auto wall_now = std::chrono::system_clock::now();
  const auto& leases = resources::Leases();
  const long long duration_s = std::chrono::duration_cast<std::chrono::seconds>(config_.lease_duration).count();
  std::optional<Json> lease = client_->TryGet(leases, config_.namespace_, config_.name);
  if (!lease) {
    Json fresh = {{"apiVersion", "coordination.k8s.io/v1"},
                  {"kind", "Lease"},
                  {"metadata", {{"name", config_.name}, {"namespace", config_.namespace_}}},
                  {"spec",
                   {{"holderIdentity", config_.identity},
                    {"leaseDurationSeconds", duration_s},
                    {"acquireTime", base::FormatMicroTime(wall_now)},
                    {"renewTime", base::FormatMicroTime(wall_now)},
                    {"leaseTransitions", 0}}}};
    try {
      RecordOwnWrite(client_->Create(leases, config_.namespace_, fresh), attempt_start);
      return true;
    } catch (const AlreadyExistsError&) {
      return false;
    } catch (const ConflictError&) {
      return false;
    }
  }
  Json spec = lease->contains("spec") && (*lease)["spec"].is_object() ? (*lease)["spec"] : Json::object();
  std::string holder = spec.value("holderIdentity", "");
  long long their_duration = spec.value("leaseDurationSeconds", duration_s);
  bool new_leader = false;
  bool still_valid = false;
  {
    std::lock_guard lock(mutex_);
    std::string raw = spec.dump();
    if (raw != observed_record_) {
      observed_record_ = raw;
      observed_time_ = attempt_start;
      if (holder != observed_holder_) {
        observed_holder_ = holder;
        new_leader = !holder.empty();
      }
    }
    bool held_by_other = !holder.empty() && holder != config_.identity;
    still_valid = held_by_other && observed_time_ + std::chrono::seconds(their_duration) > attempt_start;
  }
  if (new_leader && config_.on_new_leader) config_.on_new_leader(holder);  // outside the lock
  if (still_valid) return false;
  Json updated = *lease;
  if (holder != config_.identity) {
    updated["spec"]["acquireTime"] = base::FormatMicroTime(wall_now);
    updated["spec"]["leaseTransitions"] = spec.value("leaseTransitions", 0) + 1;
  }
  updated["spec"]["holderIdentity"] = config_.identity;
  updated["spec"]["leaseDurationSeconds"] = duration_s;
  updated["spec"]["renewTime"] = base::FormatMicroTime(wall_now);
  try {
    RecordOwnWrite(client_->Update(leases, config_.namespace_, updated), attempt_start);
    return true;
  } catch (const ConflictError&) {
    return false;
  }
}

// Our create or update went through: the stored record is what we last observed, held by us.
void LeaderElector::RecordOwnWrite(const Json& stored, Clock::time_point attempt_start) {
  std::lock_guard lock(mutex_);
  observed_record_ = stored["spec"].dump();
  observed_time_ = attempt_start;
  observed_holder_ = config_.identity;
  last_renew_ = attempt_start;
}

void LeaderElector::Release() {
  try {
    client_->Modify(resources::Leases(), config_.namespace_, config_.name, [&](Json& lease) {
      if (lease["spec"].value("holderIdentity", "") != config_.identity) return false;
      lease["spec"]["holderIdentity"] = "";
      lease["spec"]["leaseDurationSeconds"] = 1;
      lease["spec"]["renewTime"] = base::FormatMicroTime(std::chrono::system_clock::now());
      return true;
    });
  } catch (...) {
    // Best effort: the lease expires on its own.
  }
}

}  // namespace gangplank::kube

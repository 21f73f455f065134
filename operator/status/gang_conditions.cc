#include "operator/status/gang_conditions.h"

#include <spdlog/spdlog.h>

#include "logging/json_log.h"
#include "operator/reasons.h"

namespace gangplank::op {

cache::OwnerRef AnchorOf(const Gang& gang, const std::string& known_uid) {
  const cache::PodInfo& lead = gang.members.front().pod;
  const cache::GangSource source = gang.identity.source;
  if (source == cache::GangSource::kOwner || source == cache::GangSource::kPodGroup || source == cache::GangSource::kNativePodGroup) {
    cache::OwnerRef ref{gang.identity.api_version, gang.identity.kind, gang.identity.name, ""};
    if (lead.controller && lead.controller->kind == ref.kind && lead.controller->name == ref.name) ref.uid = lead.controller->uid;
    if (ref.uid.empty()) ref.uid = known_uid;
    return ref;
  }
  return cache::OwnerRef{"v1", "Pod", lead.name, lead.uid};
}

GangConditions::GangConditions(ClusterWriter& writer, std::function<double()> now, double min_rewrite_seconds, UidOf uid_of,
                               double first_wait_seconds)
    : writer_(writer), now_(std::move(now)), min_rewrite_seconds_(min_rewrite_seconds), uid_of_(std::move(uid_of)),
      first_wait_seconds_(first_wait_seconds), thread_([this] { Run(); }) {}

cache::OwnerRef GangConditions::Anchor(const Gang& gang) const {
  return AnchorOf(gang, uid_of_ && gang.identity.source != cache::GangSource::kLone ? uid_of_(gang.key) : "");
}

GangConditions::~GangConditions() {
  queue_.shutdown();
  thread_.join();
}

void GangConditions::Admitted(const Gang& gang, const std::string& message, bool notable) {
  // A PodGroup's users read its status, however few pods it has.
  const bool group = gang.identity.source == cache::GangSource::kPodGroup ||
                     gang.identity.source == cache::GangSource::kNativePodGroup;
  Set(gang, "True", reasons::kAdmitted, message, !notable && !group && gang.members.size() == 1);
}

void GangConditions::Blocked(const Gang& gang, const std::string& reason, const std::string& message) {
  Set(gang, "False", reason, message);
}

void GangConditions::Set(const Gang& gang, const std::string& status, const std::string& reason, const std::string& message,
                         bool quiet) {
  if (gang.members.empty()) return;
  std::lock_guard lock(mu_);
  const auto [it, fresh] = desired_.try_emplace(gang.key);
  Desired& d = it->second;
  if (fresh) d.first_at = now_();
  const bool reason_moved = d.status != status || d.reason != reason;
  d.lead = gang.members.front().pod;
  d.anchor = Anchor(gang);
  d.status = status;
  d.reason = reason;
  d.message = message;
  d.quiet = quiet;
  const bool unchanged = d.written_status == status && d.written_reason == reason && d.written_message == message;
  if (d.queued) {
    // Waiting on a timer; a new status or reason is looked at again at once (the timer may not apply to it).
    if (d.delayed && reason_moved) {
      d.delayed = false;
      queue_.Add(gang.key);
    }
    return;
  }
  if (unchanged) return;
  d.queued = true;
  ++pending_;
  queue_.Add(gang.key);
}

void GangConditions::Event(const Gang& gang, const std::string& type, const std::string& reason, const std::string& message) {
  if (gang.members.empty()) return;
  writer_.RecordEvent(EventWrite{Anchor(gang), gang.namespace_, type, reason, message});
}

void GangConditions::Forget(const std::string& gang_key) {
  std::lock_guard lock(mu_);
  auto it = desired_.find(gang_key);
  if (it == desired_.end()) return;
  if (it->second.queued && --pending_ == 0) idle_cv_.notify_all();
  desired_.erase(it);  // A queued key finds nothing and is skipped.
}

bool GangConditions::Says(const std::string& gang_key, const std::string& reason, const std::string& message) const {
  std::lock_guard lock(mu_);
  auto it = desired_.find(gang_key);
  return it != desired_.end() && it->second.reason == reason && it->second.message == message;
}

std::string GangConditions::ReasonOf(const std::string& gang_key) const {
  std::lock_guard lock(mu_);
  auto it = desired_.find(gang_key);
  return it == desired_.end() ? std::string() : it->second.reason;
}

std::string GangConditions::MessageOf(const std::string& gang_key) const {
  std::lock_guard lock(mu_);
  auto it = desired_.find(gang_key);
  return it == desired_.end() ? std::string() : it->second.message;
}

bool GangConditions::WaitIdle(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mu_);
  return idle_cv_.wait_for(lock, timeout, [this] { return pending_ == 0; });
}

void GangConditions::Run() {
  while (auto key = queue_.Get()) {
    Process(*key);
    queue_.done(*key);
  }
}

void GangConditions::Process(const std::string& key) {
  std::unique_lock lock(mu_);
  auto it = desired_.find(key);
  if (it == desired_.end() || !it->second.queued) return;
  Desired& d = it->second;
  if (const double wait = WaitBeforeWriting(d); wait > 0) {
    d.delayed = true;
    queue_.AddAfter(key, std::chrono::milliseconds(static_cast<long long>(std::min(wait, 3600.0) * 1000) + 1));
    return;
  }
  d.delayed = false;
  Desired snapshot = d;
  d.written_status = d.status;
  d.written_reason = d.reason;
  d.written_message = d.message;
  d.written_at = now_();
  d.queued = false;  // A change from here on queues the gang again.
  lock.unlock();
  // A lone pod admitted before a word was said about it: PodScheduled on the pod says it.
  if (!(snapshot.quiet && snapshot.written_reason.empty())) WriteOne(key, std::move(snapshot));
  lock.lock();
  if (--pending_ == 0) idle_cv_.notify_all();
}

double GangConditions::WaitBeforeWriting(const Desired& d) const {
  // The first word that a gang waits: most are admitted within moments.
  if (d.written_reason.empty()) return d.status == "False" ? d.first_at + first_wait_seconds_ - now_() : 0;
  // Only the numbers moved (same status and reason): wait out the rewrite interval.
  if (d.written_status == d.status && d.written_reason == d.reason) return d.written_at + min_rewrite_seconds_ - now_();
  return 0;
}

void GangConditions::WriteOne(const std::string& key, Desired d) {
  try {
    const bool flipped = d.written_status != d.status;
    const ConditionWrite condition{kGangConditionType, d.status, d.reason, d.message, flipped};
    writer_.SetPodCondition(d.lead, condition);
    // A native PodGroup's users read its status: the same condition there, beside the scheduler's own.
    if (d.anchor.kind == "PodGroup" && d.anchor.api_version == cache::kNativePodGroupApiVersion) {
      writer_.SetPodGroupCondition(d.lead.namespace_, d.anchor.name, condition);
    }
    if (d.written_reason != d.reason) {
      writer_.RecordEvent(EventWrite{d.anchor, d.lead.namespace_, d.status == "True" ? reasons::kNormal : reasons::kWarning, d.reason,
                                     "gang " + key + ": " + d.message});
    }
  } catch (const std::exception& e) {
    spdlog::warn(logging::JsonFields("cannot write gang condition", "gang", key, "error", e.what()));
  }
}

}  // namespace gangplank::op

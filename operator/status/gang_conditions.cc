#include "operator/status/gang_conditions.h"

#include <spdlog/spdlog.h>

#include "logging/json_log.h"

namespace gangplank::op {

cache::OwnerRef AnchorOf(const Gang& gang) {
  const cache::PodInfo& lead = gang.members.front().pod;
  if (gang.identity.source == cache::GangSource::kOwner || gang.identity.source == cache::GangSource::kPodGroup) {
    cache::OwnerRef ref{gang.identity.api_version, gang.identity.kind, gang.identity.name, ""};
    if (lead.controller && lead.controller->kind == ref.kind && lead.controller->name == ref.name) ref.uid = lead.controller->uid;
    return ref;
  }
  return cache::OwnerRef{"v1", "Pod", lead.name, lead.uid};
}

GangConditions::GangConditions(ClusterWriter& writer, std::function<double()> now, double min_rewrite_seconds)
    : writer_(writer), now_(std::move(now)), min_rewrite_seconds_(min_rewrite_seconds), thread_([this] { Run(); }) {}

GangConditions::~GangConditions() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void GangConditions::Admitted(const Gang& gang, const std::string& message) { Set(gang, "True", "Admitted", message); }

void GangConditions::Blocked(const Gang& gang, const std::string& reason, const std::string& message) {
  Set(gang, "False", reason, message);
}

void GangConditions::Set(const Gang& gang, const std::string& status, const std::string& reason, const std::string& message) {
  if (gang.members.empty()) return;
  std::lock_guard lock(mu_);
  Desired& d = desired_[gang.key];
  d.lead = gang.members.front().pod;
  d.anchor = AnchorOf(gang);
  d.status = status;
  d.reason = reason;
  d.message = message;
  const bool unchanged = d.written_status == status && d.written_reason == reason && d.written_message == message;
  if (unchanged || d.queued) return;
  d.queued = true;
  queue_.push_back(gang.key);
  cv_.notify_one();
}

void GangConditions::Event(const Gang& gang, const std::string& type, const std::string& reason, const std::string& message) {
  if (gang.members.empty()) return;
  writer_.RecordEvent(EventWrite{AnchorOf(gang), gang.namespace_, type, reason, message});
}

void GangConditions::Forget(const std::string& gang_key) {
  std::lock_guard lock(mu_);
  desired_.erase(gang_key);  // A queued key finds nothing and is skipped.
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
  return idle_cv_.wait_for(lock, timeout, [this] { return queue_.empty() && !busy_; });
}

void GangConditions::Run() {
  std::unique_lock lock(mu_);
  while (true) {
    cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (stopping_) return;
    const std::string key = queue_.front();
    queue_.pop_front();
    auto it = desired_.find(key);
    if (it == desired_.end()) continue;
    Desired& d = it->second;
    d.queued = false;
    // Only the numbers moved (same status and reason): wait out the rewrite interval first.
    const double wait = d.written_at + min_rewrite_seconds_ - now_();
    if (d.written_status == d.status && d.written_reason == d.reason && wait > 0) {
      d.queued = true;
      queue_.push_back(key);
      if (queue_.size() == 1) cv_.wait_for(lock, std::chrono::duration<double>(std::min(wait, 1.0)), [this] { return stopping_; });
      continue;
    }
    Desired snapshot = d;
    d.written_status = d.status;
    d.written_reason = d.reason;
    d.written_message = d.message;
    d.written_at = now_();
    busy_ = true;
    lock.unlock();
    WriteOne(key, std::move(snapshot));
    lock.lock();
    busy_ = false;
    if (queue_.empty()) idle_cv_.notify_all();
  }
}

void GangConditions::WriteOne(const std::string& key, Desired d) {
  try {
    const bool flipped = d.written_status != d.status;
    writer_.SetPodCondition(d.lead, ConditionWrite{kGangConditionType, d.status, d.reason, d.message, flipped});
    if (d.written_reason != d.reason) {
      writer_.RecordEvent(EventWrite{d.anchor, d.lead.namespace_, d.status == "True" ? "Normal" : "Warning", d.reason,
                                     "gang " + key + ": " + d.message});
    }
  } catch (const std::exception& e) {
    spdlog::warn(logging::JsonFields("cannot write gang condition", "gang", key, "error", e.what()));
  }
}

}  // namespace gangplank::op

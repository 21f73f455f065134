#include "operator/gangs/gang_tracker.h"

#include <algorithm>
#include <chrono>

#include "cache/objects/conventions.h"
#include "cache/objects/convert.h"
#include "cache/objects/decode_error.h"
#include "base/time_format.h"

namespace gangplank::op {

std::vector<cache::PodInfo> LiveMembers(const Gang& gang) {
  std::vector<cache::PodInfo> pods;
  for (const Member& m : gang.members) {
    if (!m.deleting()) pods.push_back(m.pod);
  }
  return pods;
}
namespace {

bool SameRequest(const engine::PodRequest& a, const engine::PodRequest& b) {
  if (a.tolerations.size() != b.tolerations.size()) return false;
  for (size_t i = 0; i < a.tolerations.size(); ++i) {
    const engine::Toleration& x = a.tolerations[i];
    const engine::Toleration& y = b.tolerations[i];
    if (x.key != y.key || x.op != y.op || x.value != y.value || x.effect != y.effect) return false;
  }
  return a.host == b.host && a.gpu_count == b.gpu_count && a.gpu_milli == b.gpu_milli && a.gpu_models == b.gpu_models &&
         a.node_selector == b.node_selector;
}

// Whether admission could decide differently about the new version (status-only changes, such as the
// conditions gangplank itself writes, cannot make it).
bool SameForAdmission(const Member& a, const Member& b) {
  return a.gated == b.gated && a.pod.node_name == b.pod.node_name && a.pod.phase == b.pod.phase &&
         a.pod.deleting == b.pod.deleting && a.pod.priority == b.pod.priority && a.pod.labels == b.pod.labels &&
         a.pod.annotations == b.pod.annotations && a.pod.scheduling_gates == b.pod.scheduling_gates &&
         a.request_error == b.request_error && SameRequest(a.request, b.request);
}

}  // namespace

std::string GangKeyOf(const cache::PodInfo& pod, const cache::GangIdentity& identity) {
  return identity.key.empty() ? pod.namespace_ + "/Pod/" + pod.name : identity.key;
}

Member MemberOf(const cache::PodInfo& pod) {
  Member m;
  m.pod = pod;
  try {
    m.request = cache::ToPodRequest(pod);
  } catch (const cache::DecodeError& e) {
    m.request_error = e.what();
  }
  m.gated = pod.HasAdmissionGate();
  m.planned_node = pod.PlannedNode();
  m.admission_id = pod.Annotation(cache::kAdmissionIdAnnotation);
  m.created = base::ParseEpochSeconds(pod.creation_timestamp).value_or(m.created);
  return m;
}

GangTracker::GangTracker(std::vector<std::string> scheduler_names) : scheduler_names_(std::move(scheduler_names)) {}

bool GangTracker::Manages(const cache::PodInfo& pod) const {
  if (pod.HasAdmissionGate()) return true;
  return std::find(scheduler_names_.begin(), scheduler_names_.end(), pod.scheduler_name) != scheduler_names_.end();
}

std::vector<std::string> GangTracker::Upsert(const cache::PodInfo& pod) {
  std::vector<std::string> touched;
  if (pod.uid.empty()) return touched;
  if (!Manages(pod) || pod.Finished()) return Remove(pod.uid);
  const cache::GangIdentity identity = cache::GangIdentityOf(pod);
  const std::string key = GangKeyOf(pod, identity);
  Member member = MemberOf(pod);
  std::lock_guard lock(mu_);
  if (auto it = gang_of_.find(pod.uid); it != gang_of_.end() && it->second != key) Erase(pod.uid, touched);
  Gang& gang = Writable(gangs_[key]);
  if (gang.key.empty()) {
    gang.key = key;
    gang.identity = identity;
    gang.namespace_ = pod.namespace_;
  }
  auto at = std::find_if(gang.members.begin(), gang.members.end(), [&](const Member& m) { return m.pod.uid == pod.uid; });
  if (at != gang.members.end()) {
    const bool same = SameForAdmission(*at, member);
    *at = std::move(member);  // Keep the newest resourceVersion either way.
    if (same) return touched;
  } else {
    auto pos = std::lower_bound(gang.members.begin(), gang.members.end(), pod.name,
                                [](const Member& m, const std::string& name) { return m.pod.name < name; });
    gang.members.insert(pos, std::move(member));
  }
  gang_of_[pod.uid] = key;
  touched.push_back(key);
  return touched;
}

std::vector<std::string> GangTracker::Remove(const std::string& uid) {
  std::vector<std::string> touched;
  std::lock_guard lock(mu_);
  Erase(uid, touched);
  return touched;
}

void GangTracker::Erase(const std::string& uid, std::vector<std::string>& touched) {
  auto it = gang_of_.find(uid);
  if (it == gang_of_.end()) return;
  const std::string key = it->second;
  gang_of_.erase(it);
  auto gang = gangs_.find(key);
  if (gang == gangs_.end()) return;
  auto& members = Writable(gang->second).members;
  members.erase(std::remove_if(members.begin(), members.end(), [&](const Member& m) { return m.pod.uid == uid; }),
                members.end());
  if (members.empty()) gangs_.erase(gang);
  touched.push_back(key);
}

Gang& GangTracker::Writable(std::shared_ptr<Gang>& slot) {
  if (!slot) {
    slot = std::make_shared<Gang>();
  } else if (slot.use_count() > 1) {
    slot = std::make_shared<Gang>(*slot);
  }
  return *slot;
}

std::shared_ptr<const Gang> GangTracker::Share(const std::string& key) const {
  std::lock_guard lock(mu_);
  auto it = gangs_.find(key);
  return it == gangs_.end() ? nullptr : it->second;
}

bool GangTracker::Has(const std::string& key) const {
  std::lock_guard lock(mu_);
  return gangs_.count(key) > 0;
}

std::vector<std::string> GangTracker::Keys() const {
  std::lock_guard lock(mu_);
  std::vector<std::string> out;
  out.reserve(gangs_.size());
  for (const auto& [key, gang] : gangs_) out.push_back(key);
  return out;
}

std::vector<std::string> GangTracker::KeysInNamespace(const std::string& namespace_) const {
  std::lock_guard lock(mu_);
  std::vector<std::string> out;
  for (const auto& [key, gang] : gangs_) {
    if (gang->namespace_ == namespace_) out.push_back(key);
  }
  return out;
}

size_t GangTracker::size() const {
  std::lock_guard lock(mu_);
  return gangs_.size();
}

}  // namespace gangplank::op

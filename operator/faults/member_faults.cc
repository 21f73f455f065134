#include "operator/faults/member_faults.h"

#include <algorithm>

#include "cache/objects/conventions.h"

namespace gangplank::op {

bool MemberFaults::Observe(const std::string& gang_key, const cache::PodInfo& pod, bool gone, double now) {
  // A member that never ran, or finished its work, is no fault of its gang.
  if (pod.node_name.empty() || pod.phase == "Succeeded") return false;
  std::optional<cache::MemberFaultSignal> fault = cache::ReadMemberFault(pod);
  if (!fault && gone) {
    fault = cache::MemberFaultSignal{cache::MemberFaultCause::kMemberDeleted, pod.namespace_ + "/" + pod.name,
                                     pod.node_name, "deleted while it ran", std::nullopt};
  }
  if (!fault) return false;
  const std::string admission = pod.Annotation(cache::kAdmissionIdAnnotation);
  if (admission.empty()) return false;  // Not a member gangplank admitted: no gang's fault to restart.
  if (!fault->since) fault->since = now;
  std::lock_guard lock(mu_);
  std::vector<RecordedMemberFault>& gang = faults_[gang_key];
  const bool known = std::any_of(gang.begin(), gang.end(), [&](const RecordedMemberFault& f) { return f.signal.pod == fault->pod; });
  if (known) return false;
  gang.push_back({std::move(*fault), admission});
  if (first_at_.emplace(gang_key, now).second && ++per_namespace_[pod.namespace_] > kMaxGangsWithMemberFaultsPerNamespace) {
    DropOldest(pod.namespace_);
  }
  if (faults_.size() > kMaxGangsWithMemberFaults) DropOldest("");
  return true;
}

// Gang keys start with their namespace ("ns/..."), so a namespace's own are found by prefix.
void MemberFaults::DropOldest(const std::string& namespace_) {
  const std::string prefix = namespace_.empty() ? std::string() : namespace_ + "/";
  auto oldest = first_at_.end();
  for (auto it = first_at_.begin(); it != first_at_.end(); ++it) {
    if (it->first.rfind(prefix, 0) != 0) continue;
    if (oldest == first_at_.end() || it->second < oldest->second) oldest = it;
  }
  if (oldest == first_at_.end()) return;
  const std::string ns = oldest->first.substr(0, oldest->first.find('/'));
  if (auto count = per_namespace_.find(ns); count != per_namespace_.end() && --count->second == 0) per_namespace_.erase(count);
  faults_.erase(oldest->first);
  first_at_.erase(oldest);
}

std::vector<RecordedMemberFault> MemberFaults::Of(const std::string& gang_key) const {
  std::lock_guard lock(mu_);
  const auto it = faults_.find(gang_key);
  return it == faults_.end() ? std::vector<RecordedMemberFault>{} : it->second;
}

void MemberFaults::Clear(const std::string& gang_key) {
  std::lock_guard lock(mu_);
  faults_.erase(gang_key);
  if (first_at_.erase(gang_key) == 0) return;
  const std::string ns = gang_key.substr(0, gang_key.find('/'));
  if (auto count = per_namespace_.find(ns); count != per_namespace_.end() && --count->second == 0) per_namespace_.erase(count);
}

std::vector<std::string> MemberFaults::Gangs() const {
  std::lock_guard lock(mu_);
  std::vector<std::string> out;
  out.reserve(faults_.size());
  for (const auto& [gang, faults] : faults_) out.push_back(gang);
  return out;
}

}  // namespace gangplank::op

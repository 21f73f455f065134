#include "operator/faults/member_faults.h"

#include <algorithm>
#include <iterator>

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
  if (first_at_.emplace(gang_key, now).second) {
    const std::string prefix = gang_key.substr(0, gang_key.find('/') + 1);
    const auto [begin, end] = GangsOf(prefix);
    if (static_cast<std::size_t>(std::distance(begin, end)) > kMaxGangsWithMemberFaultsPerNamespace) DropOldest(prefix);
  }
  if (faults_.size() > kMaxGangsWithMemberFaults) DropOldest("");
  return true;
}

// Gang keys start with their namespace ("ns/..."): a namespace's gangs are one range of the sorted map.
std::pair<MemberFaults::FirstAt::iterator, MemberFaults::FirstAt::iterator> MemberFaults::GangsOf(const std::string& prefix) {
  const auto begin = first_at_.lower_bound(prefix);
  auto end = begin;
  while (end != first_at_.end() && end->first.compare(0, prefix.size(), prefix) == 0) ++end;
  return {begin, end};
}

void MemberFaults::DropOldest(const std::string& prefix) {
  const auto [begin, end] = GangsOf(prefix);
  const auto oldest = std::min_element(begin, end, [](const auto& a, const auto& b) { return a.second < b.second; });
  if (oldest == end) return;
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
  first_at_.erase(gang_key);
}

std::vector<std::string> MemberFaults::Gangs() const {
  std::lock_guard lock(mu_);
  std::vector<std::string> out;
  out.reserve(faults_.size());
  for (const auto& [gang, faults] : faults_) out.push_back(gang);
  return out;
}

}  // namespace gangplank::op

#include "operator/admission/admission_commit.h"

#include <algorithm>
#include <set>

#include "cache/objects/conventions.h"

namespace gangplank::op {
namespace {

constexpr int kReleaseAttempts = 4;

bool CarriesPlan(const cache::PodInfo& pod, const std::string& admission_id) {
  return pod.HasAnnotation(cache::kAdmissionIdAnnotation) && pod.Annotation(cache::kAdmissionIdAnnotation) == admission_id;
}

// Releases one member, re-reading it after a conflict. Returns false (with why) when it cannot be.
bool ReleaseOne(ClusterWriter& writer, cache::PodInfo pod, const std::string& admission_id,
                const std::function<void(const cache::PodInfo&)>& assume, std::string& why) {
  for (int attempt = 0; attempt < kReleaseAttempts; ++attempt) {
    if (!pod.HasAdmissionGate()) return true;  // Already released (by us before a restart, or meanwhile).
    if (!CarriesPlan(pod, admission_id)) {
      why = "pod " + pod.namespace_ + "/" + pod.name + " no longer carries admission " + admission_id;
      return false;
    }
    try {
      assume(writer.ReleasePod(pod));
      return true;
    } catch (const PodChanged&) {
      auto fresh = writer.ReadPod(pod.namespace_, pod.name);
      if (!fresh) {
        why = "pod " + pod.namespace_ + "/" + pod.name + " is gone";
        return false;
      }
      pod = std::move(*fresh);
    }
  }
  why = "pod " + pod.namespace_ + "/" + pod.name + " kept changing while its gate was being removed";
  return false;
}

// The pod as the plan writes it: with the deadline it is held to, if any, and the autoscaler told to
// keep its node (the writer writes both).
cache::PodInfo AsPlanned(const PlannedMember& member) {
  cache::PodInfo pod = member.pod;
  if (member.active_deadline_seconds) pod.active_deadline_seconds = member.active_deadline_seconds;
  if (member.keep_node) pod.annotations[kDoNotDisruptAnnotation] = "true";
  return pod;
}

// A gang of one pod has no other member to wait for: plan and release are one write.
CommitResult CommitSolePod(ClusterWriter& writer, const PlannedMember& member, const std::string& admission_id,
                           const std::function<void(const cache::PodInfo&)>& assume) {
  CommitResult result;
  try {
    assume(writer.PlanAndReleasePod(AsPlanned(member), member.node, admission_id));
  } catch (const std::exception& e) {
    result.error = std::string(e.what()) + "; admission " + admission_id + " not written";
    return result;
  }
  result.committed = true;
  result.released = 1;
  return result;
}

}  // namespace

CommitResult CommitAdmission(ClusterWriter& writer, const std::vector<PlannedMember>& members,
                             const std::string& admission_id, const std::function<void(const cache::PodInfo&)>& assume) {
  CommitResult result;
  if (members.size() == 1) return CommitSolePod(writer, members.front(), admission_id, assume);
  std::vector<cache::PodInfo> planned;
  for (const PlannedMember& m : members) {
    try {
      cache::PodInfo stored = writer.PlanPod(AsPlanned(m), m.node, admission_id);
      assume(stored);
      planned.push_back(std::move(stored));
    } catch (const std::exception& e) {
      // Not all members carry the plan: take it back from those that do, and plan again later.
      result.error = std::string(e.what()) + "; admission " + admission_id + " rolled back";
      RollBackPlan(writer, planned, assume);
      return result;
    }
  }
  result.committed = true;
  result.released = ReleaseMembers(writer, planned, admission_id, assume, &result.error);
  return result;
}

int ReleaseMembers(ClusterWriter& writer, const std::vector<cache::PodInfo>& members, const std::string& admission_id,
                   const std::function<void(const cache::PodInfo&)>& assume, std::string* error) {
  int released = 0;
  for (const cache::PodInfo& pod : members) {
    std::string why;
    if (ReleaseOne(writer, pod, admission_id, assume, why)) {
      ++released;
    } else if (error != nullptr) {
      *error = why;
    }
  }
  return released;
}

void RollBackPlan(ClusterWriter& writer, const std::vector<cache::PodInfo>& members,
                  const std::function<void(const cache::PodInfo&)>& assume) {
  for (cache::PodInfo pod : members) {
    for (int attempt = 0; attempt < kReleaseAttempts; ++attempt) {
      try {
        assume(writer.UnplanPod(pod));
        break;
      } catch (const PodChanged&) {
        auto fresh = writer.ReadPod(pod.namespace_, pod.name);
        if (!fresh || !fresh->HasAdmissionGate()) break;  // Gone, or released by someone: nothing of ours to take back.
        pod = std::move(*fresh);
      } catch (const std::exception&) {
        break;  // Left for RecoveryFor on the next reconcile.
      }
    }
  }
}

Recovery RecoveryFor(const Gang& gang, int min_members) {
  std::set<std::string> ids;
  int planned_gated = 0, unplanned_gated = 0, started = 0;
  for (const Member& m : gang.members) {
    if (m.deleting()) continue;
    if (!m.gated) {
      if (!m.planned_node.empty() || m.bound()) ++started;
      continue;
    }
    if (m.admission_id.empty() || m.planned_node.empty()) {
      ++unplanned_gated;
    } else {
      ++planned_gated;
      ids.insert(m.admission_id);
    }
  }
  if (planned_gated == 0) return Recovery::kNone;
  if (ids.size() == 1 && (unplanned_gated == 0 || planned_gated + started >= min_members)) return Recovery::kFinishRelease;
  return Recovery::kRollBack;
}

}  // namespace gangplank::op

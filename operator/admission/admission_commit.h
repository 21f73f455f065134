// Writing one gang's admission so that no gang is ever half-admitted, whatever fails or restarts:
//   phase 1  every member gets gangplank.io/planned-node and one gangplank.io/admission-id, each write
//            preconditioned on the resourceVersion the plan was made from; if any member changed, the
//            members already written are rolled back and the gang is planned again later;
//   phase 2  only once every member carries the plan, every member's scheduling gate is removed
//            (kube-scheduler then binds each to its planned node, steered by the extender). A member
//            that changed in between is re-read and released again: the plan is complete, so
//            releasing is always safe.
// A process that stops between the phases leaves gated pods with the plan written on them;
// RecoveryFor tells the next leader to finish releasing them (whole plan present) or roll back.
// A gang of one pod does both phases in one write (ClusterWriter::PlanAndReleasePod): half of one pod
// cannot be admitted, and the admission costs one request to the API server instead of two.
// "Changed" means changed in more than its status (operator/writer/pod_drift.h).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "operator/writer/cluster_writer.h"
#include "operator/gangs/gang_tracker.h"

namespace gangplank::op {

struct PlannedMember {
  cache::PodInfo pod;  // As the plan read it (its resourceVersion is the precondition).
  std::string node;
  // Written with the plan as spec.activeDeadlineSeconds: a gang that backfilled onto nodes reserved for
  // another gang on its declared runtime is held to it by Kubernetes (the kubelet ends the pod). A field
  // that can never be unset: a plan rolled back leaves it, the runtime the pod's owner declared.
  std::optional<std::int64_t> active_deadline_seconds;
  // Written with the plan as karpenter.sh/do-not-disrupt=true: a member of a gang in an autoscaled pool,
  // whose node the autoscaler's consolidation or drift must not take alone.
  bool keep_node = false;
};

struct CommitResult {
  bool committed = false;  // Phase 1 completed for every member (phase 2 then always proceeds).
  int released = 0;        // Members whose gate was removed.
  std::string error;       // Why not committed, or what failed while releasing.
};

// `assume` sees every pod as stored after each successful write, so the caller's caches hold the
// plan before the informer reports it (as kube-scheduler's assume cache does).
CommitResult CommitAdmission(ClusterWriter& writer, const std::vector<PlannedMember>& members,
                             const std::string& admission_id, const std::function<void(const cache::PodInfo&)>& assume);

// Phase 2 alone, for a gang whose plan is complete on every gated member (recovery).
int ReleaseMembers(ClusterWriter& writer, const std::vector<cache::PodInfo>& members, const std::string& admission_id,
                   const std::function<void(const cache::PodInfo&)>& assume, std::string* error = nullptr);

// Removes a partial plan from gated members.
void RollBackPlan(ClusterWriter& writer, const std::vector<cache::PodInfo>& members,
                  const std::function<void(const cache::PodInfo&)>& assume);

enum class Recovery { kNone, kFinishRelease, kRollBack };

// What to do with a gang found holding an admission that was not written through: finish releasing
// when every gated member carries the same admission id and the plan covers the gang (no unplanned
// gated member, or enough planned and started members for its minimum), roll back otherwise.
Recovery RecoveryFor(const Gang& gang, int min_members);

}  // namespace gangplank::op

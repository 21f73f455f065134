// The cluster model used as scratch during an admission round: plans applied, victims released and
// nodes cordoned tentatively, so later steps of the round see earlier ones. Everything is undone in
// reverse order when the ScratchModel goes away (or on UndoTo), so the caller's model is unchanged on
// return, also when an exception escapes. The policy is told of every tentative change and its undoing.
#pragma once

#include <cstddef>
#include <vector>

#include "engine/cluster.h"
#include "engine/gang/gang_plan.h"
#include "engine/gang/gang_request.h"
#include "engine/scoring_policy.h"

namespace gangplank::engine {

class ScratchModel {
 public:
  ScratchModel(Cluster& cluster, ScoringPolicy& policy) : cluster_(cluster), policy_(policy) {}
  ScratchModel(const ScratchModel&) = delete;
  ScratchModel& operator=(const ScratchModel&) = delete;
  // Undo cannot fail unless the model was changed behind our back; then Cluster throws and the
  // process terminates rather than continue on corrupt books.
  ~ScratchModel() { UndoTo(0); }

  Cluster& cluster() { return cluster_; }
  const Cluster& cluster() const { return cluster_; }
  ScoringPolicy& policy() { return policy_; }

  void Apply(const GangPlan& plan, const GangRequest& gang);
  void Release(const std::vector<Allocation>& allocations);
  // Marks nodes unschedulable; nodes already cordoned are left alone (and stay cordoned on undo).
  void Cordon(const std::vector<NodeId>& nodes);
  void Uncordon(const std::vector<NodeId>& nodes);

  std::size_t Mark() const { return log_.size(); }
  void UndoTo(std::size_t mark);

 private:
  enum class Kind { kAssigned, kReleased, kCordoned, kUncordoned };
  struct Entry {
    Kind kind;
    Allocation allocation;
    PodRequest request;
    NodeId node = kNoNode;
  };

  Cluster& cluster_;
  ScoringPolicy& policy_;
  std::vector<Entry> log_;
};

// The request an allocation satisfies, as far as the cluster model needs it (sizes, no constraints).
PodRequest RequestOf(const Allocation& allocation);

}  // namespace gangplank::engine

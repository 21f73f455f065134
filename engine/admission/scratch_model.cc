#include "engine/admission/scratch_model.h"

namespace gangplank::engine {

PodRequest RequestOf(const Allocation& allocation) {
  PodRequest r;
  r.host = allocation.host;
  r.gpu_count = static_cast<int>(allocation.gpus.size());
  r.gpu_milli = allocation.milli_per_gpu;
  return r;
}

void ScratchModel::Apply(const GangPlan& plan, const GangRequest& gang) {
  for (const MemberAllocation& m : plan.allocations) {
    cluster_.Assign(m.allocation);
    const PodRequest& request = gang.members.at(static_cast<size_t>(m.member));
    log_.push_back({Kind::kAssigned, m.allocation, request, m.allocation.node});
    policy_.OnAssigned(m.allocation, request);
  }
}

void ScratchModel::Release(const std::vector<Allocation>& allocations) {
  for (const Allocation& a : allocations) {
    cluster_.Release(a);
    const PodRequest request = RequestOf(a);
    log_.push_back({Kind::kReleased, a, request, a.node});
    policy_.OnReleased(a, request);
  }
}

void ScratchModel::Cordon(const std::vector<NodeId>& nodes) {
  for (NodeId n : nodes) {
    if (cluster_.spec(n).unschedulable) continue;
    cluster_.SetUnschedulable(n, true);
    log_.push_back({Kind::kCordoned, {}, {}, n});
  }
}

void ScratchModel::Uncordon(const std::vector<NodeId>& nodes) {
  for (NodeId n : nodes) {
    if (!cluster_.spec(n).unschedulable) continue;
    cluster_.SetUnschedulable(n, false);
    log_.push_back({Kind::kUncordoned, {}, {}, n});
  }
}

void ScratchModel::UndoTo(std::size_t mark) {
  while (log_.size() > mark) {
    const Entry e = std::move(log_.back());
    log_.pop_back();
    switch (e.kind) {
      case Kind::kAssigned:
        cluster_.Release(e.allocation);
        policy_.OnReleased(e.allocation, e.request);
        break;
      case Kind::kReleased:
        cluster_.Assign(e.allocation);
        policy_.OnAssigned(e.allocation, e.request);
        break;
      case Kind::kCordoned:
        cluster_.SetUnschedulable(e.node, false);
        break;
      case Kind::kUncordoned:
        cluster_.SetUnschedulable(e.node, true);
        break;
    }
  }
}

}  // namespace gangplank::engine

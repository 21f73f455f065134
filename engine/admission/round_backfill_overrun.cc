// Backfill on a prediction is a bet: a gang started on nodes reserved for another because gangs like
// it ran short enough (WaitingGang::predicted_runtime). When it loses the bet, running past its
// RunningGang::leave_by while the reserved gang could start on its nodes were it gone, it is ended
// whole and requeued in its place, as spot reclaim ends a gang (the caller asks for a checkpoint first).
// Only then: a late gang whose reservation still waits on other gangs keeps running.
#include <algorithm>

#include "engine/admission/decision_text.h"
#include "engine/admission/round.h"
#include "engine/gang/gang_planner.h"

namespace gangplank::engine {

// Running gangs past their leave_by holding some of `nodes`.
std::vector<int> Round::OverstayingOn(const std::vector<NodeId>& nodes) const {
  std::vector<int> late;
  for (size_t r = 0; r < in_.running.size(); ++r) {
    const RunningGang& gang = in_.running[r];
    if (!gang.leave_by || in_.now < *gang.leave_by || gang.terminating || Evicted(static_cast<int>(r))) continue;
    const bool there = std::any_of(gang.allocations.begin(), gang.allocations.end(), [&](const Allocation& a) {
      return std::find(nodes.begin(), nodes.end(), a.node) != nodes.end();
    });
    if (there) late.push_back(static_cast<int>(r));
  }
  return late;
}

void Round::EndOverrunBackfills() {
  for (const auto& [w, r] : reserved_) {
    if (r.for_reclaim) continue;
    const std::vector<int> late = OverstayingOn(r.nodes);
    if (late.empty()) continue;
    // Would the reserved gang start on its own nodes with the late gangs gone?
    const std::size_t mark = model_.Mark();
    for (int l : late) model_.Release(in_.running[l].allocations);
    model_.Uncordon(r.nodes);
    const bool ready = PlanGang(model_.cluster(), Request(w), model_.policy(), rng_).placed;
    model_.UndoTo(mark);
    if (!ready) continue;
    for (int l : late) {
      const RunningGang& gang = in_.running[l];
      std::string reason = "started on nodes reserved for " + Request(w).name + ", expected to leave within " +
                           RoughDuration(*gang.leave_by - gang.start) + " like gangs of its kind; it has run " +
                           RoughDuration(in_.now - gang.start) + " and " + Request(w).name +
                           " can start once it leaves: ending the whole gang to requeue it in its place";
      out_.reclaims.push_back(Reclaimed{l, w, LostGpuSeconds(gang, in_.now), std::move(reason), EvictionKind::kBackfillOverrun});
      MarkEvicted(l);  // Its GPUs stay held until its pods are gone.
    }
  }
}

}  // namespace gangplank::engine

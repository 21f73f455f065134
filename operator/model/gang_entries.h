// One gang as the engine's admission round sees it, built from the tracker's view of its pods and the
// pool's cluster state:
//   running  the members holding capacity in this pool (bound, or admitted and waiting for
//            kube-scheduler): a RunningGang the round may count, reclaim or time out;
//   waiting  the members still held by the admission gate with no plan: a WaitingGang, when the gang
//            is complete (as many members as its size; a gang already running admits its
//            replacements together), its queue may use this pool and its pods can be read; none
//            while a gated member holds a plan (an admission not yet released whole).
// What keeps a waiting gang out of the round altogether is an operator-level block (GangIncomplete,
// QueueNotFound, InvalidPod, GangSizeUnknown...), said on the gang's condition like the engine's.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cache/state/state_view.h"
#include "engine/admission/admission_input.h"
#include "operator/gangs/gang_size.h"
#include "operator/gangs/gang_tracker.h"
#include "operator/model/queue_tree.h"

namespace gangplank::op {

struct EntryContext {
  std::string queue;           // The gang's queue (cache::QueueResolver).
  QueueVerdict queue_verdict;  // May the queue admit it in this pool.
  std::optional<GangSize> size;
  std::string size_reason, size_message;  // When !size.
  double gang_timeout_seconds = 0;        // 0: none.
  double requeued_arrival = -1;           // >= 0: the gang was evicted and requeued; it keeps this place.
  // kube-scheduler runs its PodGroup cycle for these pods: it holds a group while any member is gated, so
  // a basic{} group's waiting pods are released together (each placed on its own), not one by one.
  bool native_gang_cycle = false;
  // The pool consolidates (spec.preemption.consolidation): a running lone pod its controller recreates
  // carries its request (engine::RunningGang::move_as). Off, no request is copied for it.
  bool movable = false;
};

struct GangEntries {
  std::optional<engine::WaitingGang> waiting;
  std::vector<cache::PodInfo> waiting_pods;  // Parallel to waiting->request.members.
  std::optional<engine::RunningGang> running;
  std::vector<cache::PodInfo> running_pods;  // The members holding capacity here.
  std::string block_reason;                  // Operator-level block of the waiting part (CamelCase).
  std::string block_message;
};

// `view` is the pool's state (allocations of running members are read from it).
GangEntries BuildGangEntries(const Gang& gang, const EntryContext& context, const cache::StateView& view);

}  // namespace gangplank::op

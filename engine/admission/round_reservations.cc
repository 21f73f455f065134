// Waiting-time reservations (ReservationConfig), Slurm's EASY backfill in gang form: a multi-pod gang
// that has waited long enough holds the nodes of the domain expected to hold it soonest, judged from the
// running gangs' expected ends (expected_end.h) and re-judged every round. No gang lands on those nodes
// unless its runtime (declared, else predicted from gangs like it) ends before the reserved gang is
// expected to start there; everywhere else smaller gangs backfill as before. A gang that came on a
// prediction and overstays is ended (round_backfill_overrun.cc), so backfill never delays the
// reservation for long.
#include <algorithm>
#include <cmath>
#include <set>

#include "engine/admission/decision_text.h"
#include "engine/admission/expected_end.h"
#include "engine/admission/round.h"
#include "engine/gang/gang_planner.h"
#include "engine/gang/reservation.h"
#include "engine/gang/soonest_reservation.h"

namespace gangplank::engine {

bool Round::JudgesReservations() const {
  return std::isfinite(config_.reservation.reserve_after_seconds) &&
         config_.reservation.choice == ReservationChoice::kSoonest;
}

// When each node's gangs are expected gone, counting this round's admissions (they hold nodes too)
// and leaving out its evictions.
std::vector<double> Round::FreeTimes() const {
  const double floor = config_.reservation.min_expected_remaining_seconds;
  std::vector<double> free_at =
      NodeFreeTimes(model_.cluster().size(), in_.running, in_.now, floor, [&](int r) { return Evicted(r); });
  for (const Admitted& a : out_.admitted) {
    const std::optional<double> runtime = BackfillRuntime(a.waiting);
    const double end = in_.now + (runtime ? *runtime : floor);
    for (const MemberAllocation& m : a.plan.allocations) {
      free_at[m.allocation.node] = std::max(free_at[m.allocation.node], end);
    }
  }
  return free_at;
}

void Round::Estimate(Reserved& r, const std::vector<double>& free_at) const {
  r.expected_start = ExpectedStartOn(model_.cluster(), Request(r.waiting), r.nodes, free_at, in_.now);
  r.domain = DomainName(model_.cluster(), r.nodes);
}

// Before admission: when each kept reservation is expected to start, for backfill onto its nodes.
void Round::EstimateKept() {
  if (!JudgesReservations() || reserved_.empty()) return;
  const std::vector<double> free_at = FreeTimes();
  for (auto& [w, r] : reserved_) {
    if (!r.for_reclaim) Estimate(r, free_at);
  }
}

std::optional<double> Round::BackfillRuntime(int w) const {
  const WaitingGang& gang = in_.waiting[w];
  return gang.expected_runtime ? gang.expected_runtime : gang.predicted_runtime;
}

bool Round::MayUseReserved(int w) const {
  const std::optional<double> runtime = BackfillRuntime(w);
  if (!runtime) return false;
  const double end = in_.now + *runtime;
  return std::any_of(reserved_.begin(), reserved_.end(),
                     [&](const auto& entry) { return !entry.second.for_reclaim && entry.second.expected_start >= end; });
}

// A gang with a runtime (declared or predicted) that fits nowhere else may use the nodes of
// reservations it leaves in time; the plan is made with those nodes open and they stay reserved.
GangPlan Round::PlanOnReserved(int w) {
  if (!MayUseReserved(w)) return {};
  const double end = in_.now + *BackfillRuntime(w);
  std::vector<NodeId> open;
  for (const auto& [other, r] : reserved_) {
    if (!r.for_reclaim && r.expected_start >= end) open.insert(open.end(), r.nodes.begin(), r.nodes.end());
  }
  const std::size_t mark = model_.Mark();
  model_.Uncordon(open);
  GangPlan plan = PlanGang(model_.cluster(), Request(w), model_.policy(), rng_);
  model_.UndoTo(mark);
  return plan;
}

// See ReservationShare: whether the gang's queue may hold one more reservation.
bool Round::QueueMayReserve(int w, const std::vector<double>& earmarked) const {
  const int q = gangs_[w].queue;
  if (config_.reservation.share == ReservationShare::kBelowShare) return BelowShare(q);
  return held_[q] + earmarked[q] < fair_[q] - kAdmissionEpsilon;
}

// kSoonest: a held reservation moves when another domain is expected ready much sooner.
void Round::Rejudge(Reserved& r, const std::vector<double>& free_at) {
  Estimate(r, free_at);
  const GangRequest& g = Request(r.waiting);
  const std::size_t mark = model_.Mark();
  model_.Uncordon(r.nodes);
  SoonestReservation best = ChooseSoonestReservation(model_.cluster(), g, free_at, in_.now);
  model_.UndoTo(mark);
  if (best.nodes.empty() ||
      !(best.start - in_.now < config_.reservation.move_factor * (r.expected_start - in_.now))) {
    return;
  }
  model_.Cordon(best.nodes);
  r.nodes = std::move(best.nodes);
  Estimate(r, free_at);
  r.reason = "moved the reservation of " + g.name + " to " + r.domain + ", expected ready sooner";
}

Reserved Round::NewReservation(int w, const std::vector<double>& free_at) const {
  const GangRequest& g = Request(w);
  Reserved r{w, {}, false, {}, {}, std::numeric_limits<double>::infinity()};
  if (config_.reservation.choice == ReservationChoice::kSoonest) {
    r.nodes = ChooseSoonestReservation(model_.cluster(), g, free_at, in_.now).nodes;
  } else {
    r.nodes = ChooseReservation(model_.cluster(), g);  // Skips cordoned nodes.
  }
  if (r.nodes.empty()) return r;
  std::string when;
  if (config_.reservation.choice == ReservationChoice::kSoonest) {
    Estimate(r, free_at);
    when = "; expected to start in " + RoughDuration(r.expected_start - in_.now);
  }
  r.reason = "reserved " + std::to_string(r.nodes.size()) + " nodes" + (r.domain.empty() ? "" : " of " + r.domain) +
             " to drain for " + g.name + ", waiting " + Fixed((in_.now - in_.waiting[w].arrival) / 3600) + " h" +
             when + "; " + QueueState(gangs_[w].queue);
  return r;
}

void Round::GrantWaitingReservations() {
  const ReservationConfig& rc = config_.reservation;
  const int budget = std::max(1, static_cast<int>(rc.max_node_fraction * model_.cluster().size()));
  int used = 0;
  std::vector<double> earmarked(in_.queues.size(), 0);  // GPUs of each queue's gangs holding reservations.
  for (const auto& [w, r] : reserved_) {
    if (r.for_reclaim) continue;
    used += static_cast<int>(r.nodes.size());
    earmarked[gangs_[w].queue] += gangs_[w].gpus;
  }
  const std::vector<double> free_at = rc.choice == ReservationChoice::kSoonest ? FreeTimes() : std::vector<double>();
  std::set<std::pair<int, std::vector<int>>> groups;  // kBelowShare: one per queue and pod shape at a time.
  for (int w : Unplaced()) {
    const GangRequest& g = Request(w);
    if (gangs_[w].timed_out) continue;
    const bool first_of_group = groups.emplace(gangs_[w].queue, GpuSizes(g)).second;
    auto held = reserved_.find(w);
    if (held != reserved_.end()) {
      if (!held->second.for_reclaim && JudgesReservations()) Rejudge(held->second, free_at);
      continue;
    }
    if ((rc.share == ReservationShare::kBelowShare && !first_of_group) || g.members.size() < 2 ||
        in_.now - in_.waiting[w].arrival < rc.reserve_after_seconds || !QueueMayReserve(w, earmarked)) {
      continue;
    }
    if (used + static_cast<int>(g.members.size()) > budget) break;
    Reserved r = NewReservation(w, free_at);
    if (r.nodes.empty()) continue;
    model_.Cordon(r.nodes);
    used += static_cast<int>(r.nodes.size());
    earmarked[gangs_[w].queue] += gangs_[w].gpus;
    reserved_[w] = std::move(r);
  }
}

}  // namespace gangplank::engine

// Why each waiting gang that was not admitted still waits: one Blocked entry per gang, in waiting order,
// judged on the model as the round leaves it (admissions applied, victims released, reservations held),
// which is what the caller will see once it applies the decision.
#include <algorithm>
#include <cmath>

#include "engine/admission/decision_text.h"
#include "engine/admission/round.h"

namespace gangplank::engine {

void Round::ExplainBlocked() {
  UnfitExplainer unfit(model_.cluster());
  std::vector<int> victims_for(in_.waiting.size(), 0);  // Evicted this round, per beneficiary.
  for (const Reclaimed& r : out_.reclaims) {
    if (r.beneficiary >= 0) ++victims_for[r.beneficiary];
  }
  auto invalid = invalid_.begin();
  for (size_t w = 0; w < in_.waiting.size(); ++w) {
    if (invalid != invalid_.end() && invalid->first == static_cast<int>(w)) {
      out_.blocked.push_back(Blocked{static_cast<int>(w), BlockCode::kInvalid, std::move(invalid->second)});
      ++invalid;
      continue;
    }
    if (gangs_[w].admitted) continue;
    Blocked b = WhyWaiting(static_cast<int>(w), unfit, victims_for);
    b.waiting = static_cast<int>(w);
    if (gangs_[w].timed_out) b = {b.waiting, BlockCode::kTimedOut, TimedOutMessage(b.waiting, b)};
    out_.blocked.push_back(std::move(b));
  }
}

// The first obstacle in this order: not planned in an incremental round, evicted gangs still leaving its nodes, a queue limit, a reservation
// being drained, an older gang of its queue it may not pass, then what the cluster lacks.
Blocked Round::WhyWaiting(int w, UnfitExplainer& unfit, const std::vector<int>& victims_for) {
  if (!gangs_[w].planned) {
    // No sentence: its last full round's reason still stands, and an incremental round must not spend
    // an allocation on each of a thousand gangs it did not look at.
    return {w, BlockCode::kNotReplanned, {}};
  }
  auto held = reserved_.find(w);
  if (held != reserved_.end() && held->second.for_reclaim) {
    const int leaving = VictimsLeaving(w, held->second, victims_for);
    if (leaving > 0) {
      return {w, BlockCode::kAwaitingVictims,
              "waiting for " + std::to_string(leaving) + (leaving == 1 ? " evicted gang" : " evicted gangs") +
                  " to leave"};
    }
  }
  const int limit = LimitBlocker(w);
  if (limit >= 0) return {w, BlockCode::kQueueAtLimit, AtLimit(w, limit)};
  if (held != reserved_.end()) {
    const size_t n = held->second.nodes.size();
    const std::string nodes = std::to_string(n) + (n == 1 ? " node" : " nodes");
    if (!held->second.for_reclaim && std::isfinite(held->second.expected_start)) {
      return {w, BlockCode::kReserved,
              "reserved " + held->second.domain + " (" + nodes + ") being drained; expected to start in " +
                  RoughDuration(held->second.expected_start - in_.now)};
    }
    return {w, BlockCode::kReserved,
            held->second.for_reclaim ? "holds a reservation of " + nodes + " freed for it by eviction; it does not fit there yet"
                                     : "holds a reservation of " + nodes + " being drained"};
  }
  const int q = gangs_[w].queue;
  const Starving& s = starving_[q];
  if (s.gang >= 0 && s.gang != w) {
    const std::vector<int>& list = by_queue_[q];
    if (std::find(list.begin() + static_cast<std::ptrdiff_t>(s.from), list.end(), w) != list.end()) {
      return {w, BlockCode::kBehindStarvingGang,
              "waits behind gang " + in_.waiting[s.gang].request.name + " of the same queue, which has waited " +
                  Fixed((in_.now - in_.waiting[s.gang].arrival) / 3600) + " h and does not fit"};
    }
  }
  return unfit.Explain(Request(w), gangs_[w].gpus);
}

std::string Round::AtLimit(int w, int q) const {
  const int leaf = gangs_[w].queue;
  std::string who = "queue " + in_.queues[q].name;
  if (q != leaf) who += (q == tree_.parent(leaf) ? " (parent of " : " (ancestor of ") + in_.queues[leaf].name + ")";
  return who + " at its limit of " + Amount(in_.queues[q].limit) + " GPUs (holds " + Amount(held_[q]) +
         ", gang needs " + Amount(gangs_[w].gpus) + ")";
}

// Gangs evicted for `w` that still hold its nodes: those evicted this round, else the terminating
// running gangs on its reserved nodes (counted in one pass over the running gangs, only when asked).
int Round::VictimsLeaving(int w, const Reserved& r, const std::vector<int>& victims_for) {
  if (victims_for[w] > 0) return victims_for[w];
  if (!leaving_known_) {
    leaving_.resize(static_cast<size_t>(model_.cluster().size()));
    for (size_t g = 0; g < in_.running.size(); ++g) {
      if (!in_.running[g].terminating) continue;
      for (const Allocation& a : in_.running[g].allocations) {
        std::vector<int>& here = leaving_[a.node];
        if (here.empty() || here.back() != static_cast<int>(g)) here.push_back(static_cast<int>(g));
      }
    }
    leaving_known_ = true;
  }
  std::vector<int> gangs;
  for (NodeId n : r.nodes) gangs.insert(gangs.end(), leaving_[n].begin(), leaving_[n].end());
  std::sort(gangs.begin(), gangs.end());
  return static_cast<int>(std::unique(gangs.begin(), gangs.end()) - gangs.begin());
}

}  // namespace gangplank::engine

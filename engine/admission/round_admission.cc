// The admitting steps of a round: gangs on their reservations, then every other gang in admission order
// with backfill (waiting-time reservations are in round_reservations.cc).
#include <algorithm>
#include <cmath>

#include "engine/admission/decision_text.h"
#include "engine/admission/round.h"
#include "engine/gang/gang_planner.h"

namespace gangplank::engine {

const GangShape& Round::ShapeFor(int w) {
  Gang& g = gangs_[w];
  if (!g.shape_known) {
    g.shape = ShapeOf(Request(w));
    g.shape_known = true;
  }
  return g.shape;
}

bool Round::Hopeless(int w) {
  // A smaller gang failing says nothing about one that may also use reserved nodes.
  if (MayUseReserved(w)) return false;
  const GangShape& s = ShapeFor(w);
  return std::any_of(failed_.begin(), failed_.end(), [&](const GangShape& f) { return NeedsAtLeast(s, f); });
}

void Round::Admit(int w, GangPlan plan, const std::string& how) {
  const GangRequest& g = Request(w);
  const int q = gangs_[w].queue;
  std::string where = plan.level < 0 ? "the pool"
                                     : model_.cluster().topology().level_keys()[plan.level] + "=" +
                                           model_.cluster().topology().ValueOf(plan.domain);
  std::string reason = "admitted " + g.name + " (" + Fixed(gangs_[w].gpus) + " GPUs, " +
                       std::to_string(plan.allocations.size()) + " pods) into " + where + how + "; " + QueueState(q);
  model_.Apply(plan, g);
  AddAlong(tree_.path(q), held_, gangs_[w].gpus);
  gangs_[w].admitted = true;
  out_.admitted.push_back(Admitted{w, std::move(plan), std::move(reason)});
  NarrowClassAfter(w);
}

void Round::StartReserved() {
  std::vector<int> order;
  for (const auto& [w, r] : reserved_) order.push_back(w);
  std::sort(order.begin(), order.end(), [&](int a, int b) { return Before(a, b); });
  for (int w : order) {
    if (!WithinLimit(w)) continue;
    const std::size_t mark = model_.Mark();
    for (const auto& [other, r] : reserved_) {
      if (other != w) model_.Cordon(r.nodes);
    }
    GangPlan plan = PlanGang(model_.cluster(), Request(w), model_.policy(), rng_);
    model_.UndoTo(mark);
    if (!plan.placed) continue;
    Admit(w, std::move(plan), " on its reservation");
    reserved_.erase(w);
  }
}

void Round::AdmitInOrder() {
  std::vector<size_t> pos(by_queue_.size(), 0);
  while (FreeGpus() > kAdmissionEpsilon) {
    int best = -1;
    for (size_t q = 0; q < by_queue_.size(); ++q) {
      const std::vector<int>& list = by_queue_[q];
      while (pos[q] < list.size() && (gangs_[list[pos[q]]].admitted || reserved_.count(list[pos[q]]) ||
                                      Hopeless(list[pos[q]]))) {
        ++pos[q];
      }
      if (pos[q] < list.size() && (best < 0 || Before(list[pos[q]], best))) best = list[pos[q]];
    }
    if (best < 0) break;
    ++pos[gangs_[best].queue];
    if (!WithinLimit(best)) continue;
    const GangRequest& g = Request(best);
    if (gangs_[best].gpus > FreeGpus() + kAdmissionEpsilon) {
      failed_.push_back(ShapeFor(best));
      BlockIfStarving(best, pos);
      continue;
    }
    GangPlan plan = PlanGang(model_.cluster(), g, model_.policy(), rng_);
    if (plan.placed) {
      Admit(best, std::move(plan), "");
    } else if (GangPlan around = PlanOnReserved(best); around.placed) {
      Admit(best, std::move(around), " on nodes reserved for another gang, which it leaves before that gang is expected to start");
      out_.admitted.back().on_reserved = true;
      out_.admitted.back().by_prediction = !in_.waiting[best].expected_runtime;
    } else {
      failed_.push_back(ShapeFor(best));
      BlockIfStarving(best, pos);
    }
  }
}

// See AdmissionConfig::no_backfill_after_seconds: the rest of the gang's queue waits behind it.
void Round::BlockIfStarving(int w, std::vector<size_t>& pos) {
  if (in_.now - in_.waiting[w].arrival < config_.no_backfill_after_seconds) return;
  const int q = gangs_[w].queue;
  starving_[q] = Starving{w, pos[q]};
  pos[q] = by_queue_[q].size();
}

// Waiting gangs planned this round and not admitted, in admission order at the current shares.
std::vector<int> Round::Unplaced() const {
  std::vector<int> order;
  for (const std::vector<int>& list : by_queue_) {
    for (int w : list) {
      if (!gangs_[w].admitted) order.push_back(w);
    }
  }
  std::sort(order.begin(), order.end(), [&](int a, int b) { return Before(a, b); });
  return order;
}

}  // namespace gangplank::engine

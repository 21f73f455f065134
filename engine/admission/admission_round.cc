#include "engine/admission/admission_round.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <tuple>

#include "engine/admission/decision_text.h"
#include "engine/admission/past_usage.h"
#include "engine/admission/round.h"
#include "engine/fairshare/admission_order.h"

namespace gangplank::engine {

double RunningGang::Gpus() const {
  double milli = 0;
  for (const Allocation& a : allocations) milli += static_cast<double>(a.gpus.size()) * a.milli_per_gpu;
  return milli / kMilliPerGpu;
}

double LostGpuSeconds(const RunningGang& gang, double now) {
  const double since = gang.last_checkpoint ? std::max(gang.start, *gang.last_checkpoint) : gang.start;
  return gang.Gpus() * std::max(0.0, now - since);
}

double GangGpus(const GangRequest& gang) {
  double milli = 0;
  for (const PodRequest& m : gang.members) milli += m.WantsGpu() ? static_cast<double>(m.TotalGpuMilli()) : 0;
  return milli / kMilliPerGpu;
}

namespace {

std::vector<double> OwnHeld(const QueueTree& tree, const std::vector<RunningGang>& running) {
  std::vector<double> own(static_cast<size_t>(tree.size()), 0);
  for (const RunningGang& r : running) {
    const int q = tree.Find(r.queue);
    if (q >= 0) own[q] += r.Gpus();
  }
  return own;
}

}  // namespace

std::vector<double> HeldByQueue(const AdmissionInput& input) { return OwnHeld(QueueTree(input.queues), input.running); }

AdmissionDecision Round::Run() {
  IndexGangs();
  NarrowExclusiveGangs();
  ComputeShares();
  model_.Cordon(in_.returning_nodes);
  StartReserved();
  EstimateKept();
  for (const auto& [w, r] : reserved_) model_.Cordon(r.nodes);
  if (!incremental()) EndOverrunBackfills();
  AdmitInOrder();
  if (std::isfinite(config_.reservation.reserve_after_seconds)) GrantWaitingReservations();
  StartEvictions();
  if (!incremental()) ReleaseStartTimeouts();
  if (config_.reclaim.enabled) Reclaim();
  if (config_.consolidation.enabled) Consolidate();
  if (AnyQueuePreempts()) Preempt();
  ExplainBlocked();
  out_.next_wakeup = NextWakeup();
  for (auto& [w, r] : reserved_) out_.reservations.push_back(std::move(r));
  return std::move(out_);
}

// Why a waiting gang cannot take part (empty when it can): unknown or inner queue, bad request.
std::string Round::Malformed(const GangRequest& g, int queue) const {
  if (queue < 0) return "gang " + g.name + " names queue '" + g.queue + "', which the pool does not have";
  if (!tree_.leaf(queue)) return "queue " + g.queue + " has child queues; gangs must name a leaf queue";
  return ValidateGang(g, model_.cluster().topology());
}

// A malformed gang takes no part; errors name it, blocked says why.
void Round::Invalid(int w, std::string why) {
  const std::string& name = in_.waiting[w].request.name;
  out_.errors.push_back(why.rfind("gang ", 0) == 0 ? why : "gang " + name + ": " + why);
  invalid_.emplace_back(w, std::move(why));
}

// One pass over every waiting gang, constant work each (an incremental round has many it does not
// plan): validity, demand, timeout, name; then reservations, then the lists of gangs to plan.
void Round::IndexGangs() {
  gangs_.resize(in_.waiting.size());
  by_queue_.resize(in_.queues.size());
  starving_.resize(in_.queues.size());
  waiting_gpus_.assign(in_.queues.size(), 0);
  std::unordered_map<std::string, int> by_name;
  for (size_t w = 0; w < in_.waiting.size(); ++w) {
    const GangRequest& g = in_.waiting[w].request;
    const int q = tree_.Find(g.queue);
    std::string why = Malformed(g, q);
    // Names only matter for matching reservations; checking them costs a hash per gang per round.
    if (why.empty() && !in_.reservations.empty() && !by_name.emplace(g.name, static_cast<int>(w)).second) {
      why = "gang name " + g.name + " is used twice";
    }
    if (!why.empty()) {
      Invalid(static_cast<int>(w), std::move(why));
      continue;
    }
    gangs_[w].queue = q;
    gangs_[w].gpus = GangGpus(g);
    gangs_[w].timed_out = TimedOut(static_cast<int>(w));
    gangs_[w].listed = !incremental();
    waiting_gpus_[q] += gangs_[w].gpus;
  }
  ListPlanned();
  KeepReservations(by_name);
  for (size_t w = 0; w < gangs_.size(); ++w) {
    Gang& g = gangs_[w];
    g.planned = g.queue >= 0 && (g.listed || reserved_.count(static_cast<int>(w)));
    if (g.planned) by_queue_[g.queue].push_back(static_cast<int>(w));
  }
  auto within = [&](int a, int b) { return WithinQueue(a, b); };
  for (std::vector<int>& list : by_queue_) {
    if (!std::is_sorted(list.begin(), list.end(), within)) std::stable_sort(list.begin(), list.end(), within);
  }
}

// An incremental round's plan_only: indices must exist (a caller bug otherwise, not a gang's fault).
void Round::ListPlanned() {
  if (!incremental()) return;
  for (int w : *in_.plan_only) {
    if (w < 0 || static_cast<size_t>(w) >= gangs_.size()) {
      throw std::invalid_argument("admission: plan_only names waiting gang " + std::to_string(w) + " of " +
                                  std::to_string(gangs_.size()));
    }
    gangs_[w].listed = gangs_[w].queue >= 0;
  }
}

void Round::KeepReservations(const std::unordered_map<std::string, int>& by_name) {
  for (const HeldReservation& r : in_.reservations) {
    auto it = by_name.find(r.gang);
    if (it == by_name.end() || reserved_.count(it->second)) continue;  // The gang left or started.
    if (gangs_[it->second].timed_out) {
      gangs_[it->second].lost_reservation = true;
      continue;
    }
    reserved_[it->second] = Reserved{it->second, r.nodes, r.for_reclaim, "reservation kept: the gang still waits", {},
                                      std::numeric_limits<double>::infinity()};
  }
}

// Demand is what a leaf holds plus what its gangs ask for; shares go down the tree from the pool's GPUs.
void Round::ComputeShares() {
  std::vector<double> own = in_.held ? *in_.held : OwnHeld(tree_, in_.running);
  if (own.size() != in_.queues.size() ||
      std::any_of(own.begin(), own.end(), [](double v) { return !(v >= 0) || !std::isfinite(v); })) {
    throw std::invalid_argument("admission: held must give a finite, non-negative number of GPUs per queue");
  }
  CheckPastUsage(in_.queues);
  std::vector<double> demand(own.size());
  for (size_t q = 0; q < own.size(); ++q) demand[q] = own[q] + waiting_gpus_[q];
  fair_ = tree_.FairShares(static_cast<double>(model_.cluster().total_gpu_milli()) / kMilliPerGpu, demand);
  held_ = tree_.SubtreeTotals(std::move(own));
  out_.fair_shares = fair_;
  out_.held = held_;
  running_held_ = held_;
}

// Priority, then requeued-after-eviction first, then arrival, then input order.
bool Round::WithinQueue(int a, int b) const {
  const WaitingGang& x = in_.waiting[a];
  const WaitingGang& y = in_.waiting[b];
  return std::make_tuple(-x.request.priority, !x.front, x.arrival, a) <
         std::make_tuple(-y.request.priority, !y.front, y.arrival, b);
}

// Gangs wait in leaves, so a leaf's own past usage is its whole subtree's.
bool Round::Before(int a, int b) const {
  const int qa = gangs_[a].queue;
  const int qb = gangs_[b].queue;
  const double ra = ShareRatio(held_[qa], fair_[qa], in_.queues[qa].past_usage);
  const double rb = ShareRatio(held_[qb], fair_[qb], in_.queues[qb].past_usage);
  if (ra != rb) return ra < rb;
  return WithinQueue(a, b);
}

int Round::LimitBlocker(int w) const {
  for (int q : tree_.path(gangs_[w].queue)) {
    if (held_[q] + gangs_[w].gpus > in_.queues[q].limit + kAdmissionEpsilon) return q;
  }
  return -1;
}

void Round::AddAlong(const std::vector<int>& path, std::vector<double>& per_queue, double gpus) {
  for (int q : path) per_queue[q] += gpus;
}

double Round::FreeGpus() const {
  const Cluster& c = model_.cluster();
  return static_cast<double>(c.total_gpu_milli() - c.allocated_gpu_milli()) / kMilliPerGpu;
}

std::string Round::QueueState(int q) const {
  return "queue " + in_.queues[q].name + " holds " + Fixed(held_[q]) + " GPUs of its fair share " + Fixed(fair_[q]);
}

AdmissionDecision DecideAdmission(Cluster& cluster, const AdmissionInput& input, const AdmissionConfig& config,
                                  ScoringPolicy& policy, Rng& rng) {
  return Round(cluster, input, config, policy, rng).Run();
}

}  // namespace gangplank::engine

#include "engine/admission/admission_round.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>
#include <unordered_map>

#include "engine/admission/scratch_model.h"
#include "engine/admission/victim_selection.h"
#include "engine/fairshare/admission_order.h"
#include "engine/fairshare/fair_share.h"
#include "engine/gang/gang_planner.h"
#include "engine/gang/reservation.h"

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

constexpr double kEpsilon = 1e-9;

std::string Fixed(double v, int digits = 1) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.*f", digits, v);
  return buffer;
}

bool SameConstraints(const PodRequest& a, const PodRequest& b) {
  if (a.gpu_milli != b.gpu_milli || a.gpu_models != b.gpu_models || a.node_selector != b.node_selector) return false;
  if (a.tolerations.size() != b.tolerations.size()) return false;
  for (size_t i = 0; i < a.tolerations.size(); ++i) {
    const Toleration& x = a.tolerations[i];
    const Toleration& y = b.tolerations[i];
    if (x.key != y.key || x.op != y.op || x.value != y.value || x.effect != y.effect) return false;
  }
  return true;
}

// What a gang needs, for the rule "a gang needing at least what a failed gang needed fails too". Only
// gangs whose members all have the same constraints and that need every member are comparable.
struct Shape {
  bool comparable = false;
  const GangRequest* gang = nullptr;
  std::vector<std::array<std::int64_t, 3>> sizes;  // (GPUs, CPU, memory) per member, descending.
};

Shape ShapeOf(const GangRequest& gang) {
  Shape s;
  s.gang = &gang;
  if (gang.members.empty() || gang.MinMembers() != static_cast<int>(gang.members.size())) return s;
  for (const PodRequest& m : gang.members) {
    if (!SameConstraints(m, gang.members.front())) return s;
    s.sizes.push_back({m.gpu_count, m.host.cpu_milli, m.host.memory_mib});
  }
  std::sort(s.sizes.begin(), s.sizes.end(), std::greater<>());
  s.comparable = true;
  return s;
}

bool NeedsAtLeast(const Shape& a, const Shape& b) {
  if (!a.comparable || !b.comparable || a.sizes.size() < b.sizes.size()) return false;
  if (a.gang->required_level != b.gang->required_level ||
      !SameConstraints(a.gang->members.front(), b.gang->members.front())) {
    return false;
  }
  for (size_t i = 0; i < b.sizes.size(); ++i) {
    for (size_t k = 0; k < 3; ++k) {
      if (a.sizes[i][k] < b.sizes[i][k]) return false;
    }
  }
  return true;
}

std::vector<int> GpuSizes(const GangRequest& gang) {
  std::vector<int> sizes;
  for (const PodRequest& m : gang.members) sizes.push_back(m.gpu_count);
  std::sort(sizes.begin(), sizes.end(), std::greater<>());
  return sizes;
}

// The state of one round.
class Round {
 public:
  Round(Cluster& cluster, const AdmissionInput& input, const AdmissionConfig& config, ScoringPolicy& policy, Rng& rng)
      : in_(input), config_(config), rng_(rng), model_(cluster, policy) {}

  AdmissionDecision Run() {
    IndexQueues();
    IndexGangs();
    ComputeShares();
    StartReserved();
    for (const auto& [w, r] : reserved_) model_.Cordon(r.nodes);
    AdmitInOrder();
    if (std::isfinite(config_.reservation.reserve_after_seconds)) GrantWaitingReservations();
    if (config_.reclaim.enabled) Reclaim();
    for (auto& [w, r] : reserved_) out_.reservations.push_back(std::move(r));
    return std::move(out_);
  }

 private:
  struct Gang {
    int queue = -1;
    double gpus = 0;
    bool admitted = false;
    bool shape_known = false;
    Shape shape;
  };

  void IndexQueues() {
    for (size_t q = 0; q < in_.queues.size(); ++q) {
      const AdmissionQueue& queue = in_.queues[q];
      if (queue.name.empty()) throw std::invalid_argument("admission: queue " + std::to_string(q) + " has no name");
      if (!(queue.weight >= 0) || !(queue.guaranteed >= 0) || !(queue.limit >= 0)) {
        throw std::invalid_argument("admission: queue " + queue.name +
                                    " has a negative or undefined weight, guarantee or limit");
      }
      if (!queue_index_.emplace(queue.name, static_cast<int>(q)).second) {
        throw std::invalid_argument("admission: queue " + queue.name + " is listed twice");
      }
    }
  }

  void IndexGangs() {
    gangs_.resize(in_.waiting.size());
    by_queue_.resize(in_.queues.size());
    waiting_gpus_.assign(in_.queues.size(), 0);
    std::unordered_map<std::string, int> by_name;
    for (size_t w = 0; w < in_.waiting.size(); ++w) {
      const GangRequest& g = in_.waiting[w].request;
      auto q = queue_index_.find(g.queue);
      std::string why = q == queue_index_.end() ? "gang " + g.name + " names queue '" + g.queue + "', which the pool does not have"
                                                : ValidateGang(g, model_.cluster().topology());
      // Names only matter for matching reservations; checking them costs a hash per gang per round.
      if (why.empty() && !in_.reservations.empty() && !by_name.emplace(g.name, static_cast<int>(w)).second) {
        why = "gang name " + g.name + " is used twice";
      }
      if (!why.empty()) {
        out_.errors.push_back(std::move(why));
        continue;
      }
      gangs_[w].queue = q->second;
      gangs_[w].gpus = GangGpus(g);
      waiting_gpus_[q->second] += gangs_[w].gpus;
      by_queue_[q->second].push_back(static_cast<int>(w));
    }
    auto within = [&](int a, int b) { return WithinQueue(a, b); };
    for (std::vector<int>& list : by_queue_) {
      if (!std::is_sorted(list.begin(), list.end(), within)) std::stable_sort(list.begin(), list.end(), within);
    }
    for (const HeldReservation& r : in_.reservations) {
      auto it = by_name.find(r.gang);
      if (it == by_name.end() || reserved_.count(it->second)) continue;  // The gang left or started.
      reserved_[it->second] = Reserved{it->second, r.nodes, r.for_reclaim, "reservation kept: the gang still waits"};
    }
  }

  void ComputeShares() {
    const size_t queues = in_.queues.size();
    held_.assign(queues, 0);
    for (const RunningGang& r : in_.running) {
      auto q = queue_index_.find(r.queue);
      if (q != queue_index_.end()) held_[q->second] += r.Gpus();
    }
    std::vector<ShareInput> inputs(queues);
    for (size_t q = 0; q < queues; ++q) {
      inputs[q] = ShareInput{in_.queues[q].weight, in_.queues[q].guaranteed, in_.queues[q].limit,
                             held_[q] + waiting_gpus_[q]};
    }
    fair_ = WaterFill(static_cast<double>(model_.cluster().total_gpu_milli()) / kMilliPerGpu, inputs);
    out_.fair_shares = fair_;
    out_.held = held_;
    running_held_ = held_;
  }

  // Priority, then requeued-after-eviction first, then arrival, then input order.
  bool WithinQueue(int a, int b) const {
    const WaitingGang& x = in_.waiting[a];
    const WaitingGang& y = in_.waiting[b];
    return std::make_tuple(-x.request.priority, !x.front, x.arrival, a) <
           std::make_tuple(-y.request.priority, !y.front, y.arrival, b);
  }
  bool Before(int a, int b) const {
    const double ra = ShareRatio(held_[gangs_[a].queue], fair_[gangs_[a].queue]);
    const double rb = ShareRatio(held_[gangs_[b].queue], fair_[gangs_[b].queue]);
    if (ra != rb) return ra < rb;
    return WithinQueue(a, b);
  }
  bool BelowShare(int q) const { return held_[q] < fair_[q] - kEpsilon; }
  bool WithinLimit(int w) const {
    const int q = gangs_[w].queue;
    return held_[q] + gangs_[w].gpus <= in_.queues[q].limit + kEpsilon;
  }
  double FreeGpus() const {
    const Cluster& c = model_.cluster();
    return static_cast<double>(c.total_gpu_milli() - c.allocated_gpu_milli()) / kMilliPerGpu;
  }
  const Shape& ShapeFor(int w) {
    Gang& g = gangs_[w];
    if (!g.shape_known) {
      g.shape = ShapeOf(in_.waiting[w].request);
      g.shape_known = true;
    }
    return g.shape;
  }
  bool Hopeless(int w) {
    const Shape& s = ShapeFor(w);
    return std::any_of(failed_.begin(), failed_.end(), [&](const Shape& f) { return NeedsAtLeast(s, f); });
  }

  std::string QueueState(int q) const {
    return "queue " + in_.queues[q].name + " holds " + Fixed(held_[q]) + " GPUs of its fair share " + Fixed(fair_[q]);
  }

  void Admit(int w, GangPlan plan, const std::string& how) {
    const GangRequest& g = in_.waiting[w].request;
    const int q = gangs_[w].queue;
    std::string where = plan.level < 0 ? "the pool"
                                       : model_.cluster().topology().level_keys()[plan.level] + "=" +
                                             model_.cluster().topology().ValueOf(plan.domain);
    std::string reason = "admitted " + g.name + " (" + Fixed(gangs_[w].gpus) + " GPUs, " +
                         std::to_string(plan.allocations.size()) + " pods) into " + where + how + "; " + QueueState(q);
    model_.Apply(plan, g);
    held_[q] += gangs_[w].gpus;
    gangs_[w].admitted = true;
    out_.admitted.push_back(Admitted{w, std::move(plan), std::move(reason)});
  }

  void StartReserved() {
    std::vector<int> order;
    for (const auto& [w, r] : reserved_) order.push_back(w);
    std::sort(order.begin(), order.end(), [&](int a, int b) { return Before(a, b); });
    for (int w : order) {
      if (!WithinLimit(w)) continue;
      const std::size_t mark = model_.Mark();
      for (const auto& [other, r] : reserved_) {
        if (other != w) model_.Cordon(r.nodes);
      }
      GangPlan plan = PlanGang(model_.cluster(), in_.waiting[w].request, model_.policy(), rng_);
      model_.UndoTo(mark);
      if (!plan.placed) continue;
      Admit(w, std::move(plan), " on its reservation");
      reserved_.erase(w);
    }
  }

  void AdmitInOrder() {
    std::vector<size_t> pos(by_queue_.size(), 0);
    while (FreeGpus() > kEpsilon) {
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
      const GangRequest& g = in_.waiting[best].request;
      if (gangs_[best].gpus > FreeGpus() + kEpsilon) {
        failed_.push_back(ShapeFor(best));
        BlockIfStarving(best, pos);
        continue;
      }
      GangPlan plan = PlanGang(model_.cluster(), g, model_.policy(), rng_);
      if (plan.placed) {
        Admit(best, std::move(plan), "");
      } else {
        failed_.push_back(ShapeFor(best));
        BlockIfStarving(best, pos);
      }
    }
  }

  // See AdmissionConfig::no_backfill_after_seconds: the rest of the gang's queue waits behind it.
  void BlockIfStarving(int w, std::vector<size_t>& pos) const {
    if (in_.now - in_.waiting[w].arrival < config_.no_backfill_after_seconds) return;
    pos[gangs_[w].queue] = by_queue_[gangs_[w].queue].size();
  }

  // Waiting gangs not admitted, in admission order at the current shares.
  std::vector<int> Unplaced() const {
    std::vector<int> order;
    for (size_t w = 0; w < gangs_.size(); ++w) {
      if (gangs_[w].queue >= 0 && !gangs_[w].admitted) order.push_back(static_cast<int>(w));
    }
    std::sort(order.begin(), order.end(), [&](int a, int b) { return Before(a, b); });
    return order;
  }

  void GrantWaitingReservations() {
    const ReservationConfig& rc = config_.reservation;
    const int budget = std::max(1, static_cast<int>(rc.max_node_fraction * model_.cluster().size()));
    int used = 0;
    for (const auto& [w, r] : reserved_) used += r.for_reclaim ? 0 : static_cast<int>(r.nodes.size());
    std::set<std::pair<int, std::vector<int>>> groups;  // One reservation per queue and pod shape at a time.
    for (int w : Unplaced()) {
      const GangRequest& g = in_.waiting[w].request;
      if (!groups.emplace(gangs_[w].queue, GpuSizes(g)).second || reserved_.count(w)) continue;
      if (g.members.size() < 2 || in_.now - in_.waiting[w].arrival < rc.reserve_after_seconds ||
          !BelowShare(gangs_[w].queue)) {
        continue;
      }
      if (used + static_cast<int>(g.members.size()) > budget) break;
      std::vector<NodeId> nodes = ChooseReservation(model_.cluster(), g);  // Skips cordoned nodes.
      if (nodes.empty()) continue;
      model_.Cordon(nodes);
      used += static_cast<int>(nodes.size());
      std::string reason = "reserved " + std::to_string(nodes.size()) + " nodes to drain for " + g.name +
                           ", waiting " + Fixed((in_.now - in_.waiting[w].arrival) / 3600) + " h; " +
                           QueueState(gangs_[w].queue);
      reserved_[w] = Reserved{w, std::move(nodes), false, std::move(reason)};
    }
  }

  int RecentEvictions() const {
    const double since = in_.now - config_.reclaim.window_seconds;
    return static_cast<int>(std::count_if(in_.recent_evictions.begin(), in_.recent_evictions.end(),
                                           [&](double t) { return t > since && t <= in_.now; }));
  }

  std::vector<VictimCandidate> Candidates(int beneficiary_queue, const std::vector<char>& evicted) const {
    std::vector<VictimCandidate> out;
    for (size_t r = 0; r < in_.running.size(); ++r) {
      const RunningGang& gang = in_.running[r];
      auto q = queue_index_.find(gang.queue);
      if (evicted[r] || gang.terminating || q == queue_index_.end() || q->second == beneficiary_queue) continue;
      if (running_held_[q->second] <= fair_[q->second] + kEpsilon) continue;
      // A gang that has not run at all (e.g. admitted this instant) is never a victim, whatever the minimum.
      if (in_.now - gang.start < config_.reclaim.min_runtime_seconds || !(in_.now > gang.start)) continue;
      const double gpus = gang.Gpus();
      const double lost = LostGpuSeconds(gang, in_.now);
      if (gpus <= 0 || lost > config_.reclaim.max_lost_gpu_seconds) continue;
      out.push_back(VictimCandidate{static_cast<int>(r), q->second, gpus, lost, &gang.allocations});
    }
    return out;
  }

  // GPUs that may be taken from each queue for a gang of queue `beneficiary`: down to the queue's
  // guarantee, and not below the beneficiary queue's current fraction of its fair share, so a victim
  // queue never ends worse off (relative to its share) than the beneficiary's queue was. That also
  // rules out ping-pong: the victim's queue cannot in turn reclaim from the beneficiary's.
  // Only what queues held before the round counts here, so gangs admitted this round never turn
  // their queue into a victim source.
  std::vector<double> Reclaimable(int beneficiary) const {
    const double ratio = ShareRatio(held_[beneficiary], fair_[beneficiary]);
    std::vector<double> r(held_.size(), 0);
    for (size_t q = 0; q < held_.size(); ++q) {
      if (static_cast<int>(q) == beneficiary || running_held_[q] <= fair_[q] + kEpsilon) continue;
      r[q] = std::max(0.0, running_held_[q] - std::max(ratio * fair_[q], in_.queues[q].guaranteed));
    }
    return r;
  }

  // Gangs reclaim may be attempted for, in admission order: unplaced gangs of queues below their fair
  // share that waited long enough and have no victims on their way out, the first of each pod shape per
  // queue, at most max_beneficiaries_per_round per queue (the loop stops there anyway).
  std::vector<int> Beneficiaries() const {
    const ReclaimConfig& rc = config_.reclaim;
    std::vector<int> picks;
    for (size_t q = 0; q < by_queue_.size(); ++q) {
      if (!BelowShare(static_cast<int>(q))) continue;
      std::set<std::vector<int>> shapes;
      int found = 0;
      for (int w : by_queue_[q]) {
        if (found >= rc.max_beneficiaries_per_round) break;
        if (gangs_[w].admitted || gangs_[w].gpus <= 0 || !WithinLimit(w)) continue;
        if (in_.now - in_.waiting[w].arrival < rc.min_wait_seconds) continue;
        auto held = reserved_.find(w);
        if (held != reserved_.end() && held->second.for_reclaim) continue;  // Its victims are on their way out.
        if (!shapes.insert(GpuSizes(in_.waiting[w].request)).second) continue;
        picks.push_back(w);
        ++found;
      }
    }
    std::sort(picks.begin(), picks.end(), [&](int a, int b) { return Before(a, b); });
    return picks;
  }

  void Reclaim() {
    const ReclaimConfig& rc = config_.reclaim;
    int budget = std::min(rc.max_victims_per_round, rc.max_victims_per_window - RecentEvictions());
    std::vector<char> evicted(in_.running.size(), 0);
    int attempts = 0;
    for (int w : Beneficiaries()) {
      const GangRequest& g = in_.waiting[w].request;
      const int q = gangs_[w].queue;
      if (!BelowShare(q) || !WithinLimit(w)) continue;  // Earlier evictions this round may have changed it.
      auto held = reserved_.find(w);
      if (attempts++ >= rc.max_beneficiaries_per_round) break;
      if (budget <= 0) {
        out_.refused.push_back({w, "not reclaiming for " + g.name + ": the preemption budget (" +
                                       std::to_string(rc.max_victims_per_round) + " gangs per round, " +
                                       std::to_string(rc.max_victims_per_window) + " per " +
                                       Fixed(rc.window_seconds / 3600) + " h) is spent"});
        continue;
      }
      const std::vector<VictimCandidate> candidates = Candidates(q, evicted);
      VictimSearch search{budget, rc.max_verifications, Reclaimable(q)};
      const std::size_t mark = model_.Mark();
      if (held != reserved_.end()) model_.Uncordon(held->second.nodes);  // Its own drain reservation is usable.
      VictimChoice choice = ChooseVictims(model_, g, candidates, search, rng_);
      model_.UndoTo(mark);
      if (!choice.found) {
        out_.refused.push_back({w, "not reclaiming for " + g.name + " (" + QueueState(q) + "): " + choice.reason});
        continue;
      }
      std::vector<NodeId> nodes;
      for (const MemberAllocation& m : choice.plan.allocations) nodes.push_back(m.allocation.node);
      const std::string beneficiary = g.name + " (" + Fixed(gangs_[w].gpus) + " GPUs; " + QueueState(q) + ")";
      for (int c : choice.victims) {
        const VictimCandidate& v = candidates[c];
        const RunningGang& victim = in_.running[v.running];
        std::string reason = "reclaiming " + Fixed(v.gpus) + " GPUs: evicting gang " + victim.name + " of " +
                             QueueState(v.queue) + " (guarantee " + Fixed(in_.queues[v.queue].guaranteed) +
                             "), after " + Fixed((in_.now - victim.start) / 3600) + " h running, losing " +
                             Fixed(v.lost_gpu_seconds / 3600) + " GPU-hours since its " +
                             (victim.last_checkpoint ? "last checkpoint" : "start") + ", so that " + beneficiary +
                             " can start";
        model_.Release(victim.allocations);
        held_[v.queue] -= v.gpus;
        running_held_[v.queue] -= v.gpus;
        evicted[v.running] = 1;
        --budget;
        out_.reclaims.push_back(Reclaimed{v.running, w, v.lost_gpu_seconds, std::move(reason)});
      }
      held_[q] += gangs_[w].gpus;  // Earmarked: the gang starts on these nodes once the victims are gone.
      if (held != reserved_.end()) model_.Uncordon(held->second.nodes);
      model_.Cordon(nodes);
      reserved_[w] = Reserved{w, std::move(nodes), true,
                              "reserved the nodes freed by reclaim for " + g.name + " until its victims are gone"};
    }
  }

  const AdmissionInput& in_;
  const AdmissionConfig& config_;
  Rng& rng_;
  ScratchModel model_;
  AdmissionDecision out_;
  std::unordered_map<std::string, int> queue_index_;
  std::vector<Gang> gangs_;
  std::vector<std::vector<int>> by_queue_;
  std::vector<double> waiting_gpus_, held_, fair_;
  std::vector<double> running_held_;  // Per queue: GPUs of running gangs not evicted this round.
  std::map<int, Reserved> reserved_;  // By waiting index: reservations held after the round.
  std::vector<Shape> failed_;
};

}  // namespace

AdmissionDecision DecideAdmission(Cluster& cluster, const AdmissionInput& input, const AdmissionConfig& config,
                                  ScoringPolicy& policy, Rng& rng) {
  return Round(cluster, input, config, policy, rng).Run();
}

}  // namespace gangplank::engine

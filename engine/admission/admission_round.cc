#include "engine/admission/admission_round.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <tuple>

#include "engine/admission/decision_text.h"
#include "engine/admission/round.h"
#include "engine/fairshare/admission_order.h"
#include "engine/fairshare/fair_share.h"

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

AdmissionDecision Round::Run() {
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

void Round::IndexQueues() {
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

void Round::IndexGangs() {
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

void Round::ComputeShares() {
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
bool Round::WithinQueue(int a, int b) const {
  const WaitingGang& x = in_.waiting[a];
  const WaitingGang& y = in_.waiting[b];
  return std::make_tuple(-x.request.priority, !x.front, x.arrival, a) <
         std::make_tuple(-y.request.priority, !y.front, y.arrival, b);
}

bool Round::Before(int a, int b) const {
  const double ra = ShareRatio(held_[gangs_[a].queue], fair_[gangs_[a].queue]);
  const double rb = ShareRatio(held_[gangs_[b].queue], fair_[gangs_[b].queue]);
  if (ra != rb) return ra < rb;
  return WithinQueue(a, b);
}

bool Round::WithinLimit(int w) const {
  const int q = gangs_[w].queue;
  return held_[q] + gangs_[w].gpus <= in_.queues[q].limit + kAdmissionEpsilon;
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

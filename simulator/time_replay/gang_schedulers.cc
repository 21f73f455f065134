#include "simulator/time_replay/gang_schedulers.h"

#include <algorithm>
#include <cmath>

#include "engine/admission/admission_round.h"
#include "engine/admission/next_wakeup.h"
#include "engine/admission/recent_evictions.h"
#include "engine/admission/scratch_model.h"
#include "simulator/time_replay/replay_cluster.h"

namespace gangplank::simulator {

GangSchedulerBase::GangSchedulerBase(const engine::Cluster& cluster, const Workload& workload, std::uint64_t seed,
                                     std::unique_ptr<engine::ScoringPolicy> policy)
    : ReplayScheduler(cluster, workload, seed), policy_(std::move(policy)) {
  placement_policy_ = policy_.get();
}

int GangSchedulerBase::FreeGpus() const {
  return static_cast<int>((cluster_.total_gpu_milli() - cluster_.allocated_gpu_milli()) / engine::kMilliPerGpu);
}

engine::GangRequest GangSchedulerBase::GangFor(const ReplayJob& job) const {
  engine::GangRequest gang;
  gang.name = "job-" + std::to_string(job.trace_row);
  gang.queue = workload_.queues[job.queue].name;
  for (int size : job.pods) gang.members.push_back(PodFor(size));
  gang.preferred_level = ReplayTopologyKeys().back();
  return gang;
}

bool GangSchedulerBase::TryStart(const ReplayJob& job) {
  if (job.gpus > FreeGpus()) return false;
  const engine::GangPlan plan = engine::PlanGang(cluster_, GangFor(job), *policy_, rng_);
  if (!plan.placed) return false;
  Start(job, plan);
  return true;
}

void GangSchedulerBase::Start(const ReplayJob& job, const engine::GangPlan& plan) {
  for (const engine::MemberAllocation& m : plan.allocations) PlacePod(job, m.member, m.allocation);
}

GangplankScheduler::GangplankScheduler(const engine::Cluster& cluster, const Workload& workload, std::uint64_t seed,
                                       std::unique_ptr<engine::ScoringPolicy> policy)
    : GangSchedulerBase(cluster, workload, seed, std::move(policy)), running_slot_(workload.jobs.size(), -1) {
  for (const ReplayQueue& q : workload.queues) {
    engine::AdmissionQueue queue;
    queue.name = q.name;
    queue.weight = q.weight;
    queue.guaranteed = q.guaranteed_gpus;
    input_.queues.push_back(std::move(queue));
  }
}

void GangplankScheduler::Wait(const ReplayJob& job, bool front) {
  engine::WaitingGang gang;
  gang.request = GangFor(job);
  gang.arrival = job.arrival;
  gang.front = front;
  if (predictor_) gang.predicted_runtime = PredictedRuntime(job.id);
  input_.waiting.push_back(std::move(gang));
  waiting_job_.push_back(job.id);
}

void GangplankScheduler::set_runtime_prediction(const engine::PredictorConfig& config, double quantile,
                                                bool predicted_ends) {
  predictor_.emplace(config);
  predicted_ends_ = predicted_ends;
  chains_.assign(workload_.jobs.size(), {});
  overran_.assign(workload_.jobs.size(), 0);
  record_.enabled = true;
  record_.quantile = quantile;
  record_.at_quantile.assign(workload_.jobs.size(), PredictionRecord::None());
  record_.median.assign(workload_.jobs.size(), PredictionRecord::None());
}

void GangplankScheduler::Submit(const ReplayJob& job) {
  NoteSubmitted(job);
  if (predictor_) {
    chains_[job.id] = predictor_->Chain(engine::RuntimeKey{workload_.queues[job.queue].name, "", job.gpus, ""});
    if (auto q = predictor_->Quantile(chains_[job.id], record_.quantile)) record_.at_quantile[job.id] = q->seconds;
    if (auto m = predictor_->Quantile(chains_[job.id], 0.5)) record_.median[job.id] = m->seconds;
  }
  Wait(job, false);
}

void GangplankScheduler::Finish(const ReplayJob& job) {
  GangSchedulerBase::Finish(job);
  ForgetRunning(job);
  if (predictor_) {
    predictor_->Observe(chains_[job.id], job.duration);
    learnt_ = true;
  }
}

std::optional<double> GangplankScheduler::PredictedRuntime(int job) const {
  if (overran_[job]) return std::nullopt;
  const std::optional<engine::RuntimePrediction> p = predictor_->Quantile(chains_[job], record_.quantile);
  return p ? std::optional<double>(p->seconds) : std::nullopt;
}

void GangplankScheduler::Predict(double now) {
  if (!predictor_) return;
  // Waiting gangs' predictions change only when a job ended (Wait predicts the ones that come).
  if (learnt_) {
    for (size_t w = 0; w < input_.waiting.size(); ++w) input_.waiting[w].predicted_runtime = PredictedRuntime(waiting_job_[w]);
    learnt_ = false;
  }
  for (size_t r = 0; r < input_.running.size() && predicted_ends_; ++r) {
    engine::RunningGang& gang = input_.running[r];
    gang.predicted_end = predictor_->PredictedEnd(chains_[running_job_[r]], gang.start, now);
  }
}

void GangplankScheduler::ForgetRunning(const ReplayJob& job) {
  const int slot = running_slot_[job.id];
  if (slot < 0) return;
  // Swap with the last entry: the order of running gangs only breaks ties between equal victims.
  const int last = static_cast<int>(input_.running.size()) - 1;
  std::swap(input_.running[slot], input_.running[last]);
  std::swap(running_job_[slot], running_job_[last]);
  running_slot_[running_job_[slot]] = slot;
  input_.running.pop_back();
  running_job_.pop_back();
  running_slot_[job.id] = -1;
}

void GangplankScheduler::UpdateCheckpoints(double now) {
  const double interval = workload_.checkpoint_seconds;
  if (!(interval > 0)) return;
  for (engine::RunningGang& r : input_.running) {
    r.last_checkpoint = r.start + std::floor((now - r.start) / interval) * interval;
  }
}

bool GangplankScheduler::Apply(const engine::AdmissionDecision& decision, std::vector<int>& started) {
  // Evict first: the victims' GPUs are what a later round's plan for their beneficiary counts on.
  std::vector<std::pair<int, EvictionCause>> evicted;
  size_t budgeted = 0;  // Evictions the preemption budget counts (start timeouts do not).
  for (const engine::Reclaimed& r : decision.reclaims) {
    const EvictionCause cause = r.kind == engine::EvictionKind::kBackfillOverrun ? EvictionCause::kOverrun
                                : r.kind == engine::EvictionKind::kConsolidation  ? EvictionCause::kMove
                                                                                  : EvictionCause::kOther;
    evicted.emplace_back(running_job_[r.running], cause);
    budgeted += engine::Budgeted(r.kind) ? 1 : 0;
  }
  std::vector<char> admitted(input_.waiting.size(), 0);
  for (const engine::Admitted& a : decision.admitted) {
    const ReplayJob& job = workload_.jobs[waiting_job_[a.waiting]];
    Start(job, a.plan);
    admitted[a.waiting] = 1;
    started.push_back(job.id);
    engine::RunningGang running;
    running.name = input_.waiting[a.waiting].request.name;
    running.queue = workload_.queues[job.queue].name;
    running.start = input_.now;
    running.allocations = AllocationsOf(job.id);
    if (job.pods.size() == 1) running.move_as = engine::RequestOf(running.allocations.front());  // Sizes only.
    if (a.by_prediction) {
      running.leave_by = input_.now + *input_.waiting[a.waiting].predicted_runtime;
      ++record_.backfilled;
    }
    running_slot_[job.id] = static_cast<int>(input_.running.size());
    input_.running.push_back(std::move(running));
    running_job_.push_back(job.id);
  }
  std::vector<engine::HeldReservation> held;
  for (const engine::Reserved& r : decision.reservations) {
    const std::string& name = input_.waiting[r.waiting].request.name;
    const bool kept = std::any_of(input_.reservations.begin(), input_.reservations.end(),
                                  [&](const engine::HeldReservation& h) { return h.gang == name; });
    reservations_made_ += kept ? 0 : 1;
    held.push_back(engine::HeldReservation{name, r.nodes, r.for_reclaim});
  }
  input_.reservations = std::move(held);
  // Started gangs leave the waiting list (one pass keeps the others in order).
  size_t keep = 0;
  for (size_t w = 0; w < input_.waiting.size(); ++w) {
    if (admitted[w]) continue;
    if (keep != w) {
      input_.waiting[keep] = std::move(input_.waiting[w]);
      waiting_job_[keep] = waiting_job_[w];
    }
    ++keep;
  }
  input_.waiting.resize(keep);
  waiting_job_.resize(keep);
  for (const auto& [id, cause] : evicted) EvictWhole(workload_.jobs[id], std::nullopt, cause);
  input_.recent_evictions.insert(input_.recent_evictions.end(), budgeted, input_.now);
  return !evicted.empty();
}

engine::RunningGang* GangplankScheduler::RunningGangOf(int job) {
  const int slot = running_slot_[job];
  return slot < 0 ? nullptr : &input_.running[slot];
}

void GangplankScheduler::EvictWhole(const ReplayJob& job, std::optional<double> checkpoint_at, EvictionCause cause) {
  ForgetRunning(job);
  if (cause == EvictionCause::kOverrun) {
    overran_[job.id] = 1;
    ++record_.overruns;
  }
  Evict(job, checkpoint_at, cause);  // Releases its GPUs and counts it as waiting again.
  Wait(job, true);            // Back at the head of its queue.
}

void GangplankScheduler::BreakRunning(const ReplayJob& job, engine::NodeId dead_node) {
  ForgetRunning(job);
  Break(job, dead_node);
}

void GangplankScheduler::RequeueBroken(const ReplayJob& job) {
  ReleaseBroken(job);
  Wait(job, true);
}

// The engine says when time alone could change its decision (AdmissionDecision::next_wakeup).
double GangplankScheduler::NextWakeup(double /*now*/) const { return next_wakeup_; }

void GangplankScheduler::Schedule(double now, std::vector<int>& started) {
  RecordUsage(now);
  RunRounds(now, started);
  usage_held_ = queue_held();
}

void GangplankScheduler::RecordUsage(double now) {
  if (!usage_.config().enabled()) return;
  for (size_t q = 0; q < usage_held_.size(); ++q) {
    usage_.Record(workload_.queues[q].name, usage_held_[q], usage_since_, now);
  }
  usage_.Prune(now);
  usage_since_ = now;
}

void GangplankScheduler::SetPastUsage(double now) {
  if (!usage_.config().enabled()) return;
  for (engine::AdmissionQueue& q : input_.queues) q.past_usage = usage_.PastUsage(q.name, now);
}

void GangplankScheduler::RunRounds(double now, std::vector<int>& started) {
  next_wakeup_ = std::numeric_limits<double>::infinity();
  if (input_.waiting.empty()) return;
  input_.now = now;
  if (FreeGpus() == 0 && !config_.reclaim.enabled) {
    next_wakeup_ = engine::NextWakeup(input_, config_);  // No round could start anything now.
    return;
  }
  UpdateCheckpoints(now);
  SetPastUsage(now);
  engine::PruneRecentEvictions(input_.recent_evictions, now, config_.reclaim.window_seconds);
  // A round that evicts makes room for gangs that start in the next round (in a cluster, once the
  // victims' pods are gone; here, at once). Budgets bound how often that repeats.
  for (int round = 0; round < 8; ++round) {
    Predict(now);
    const engine::AdmissionDecision decision = engine::DecideAdmission(cluster_, input_, config_, *policy_, rng_);
    next_wakeup_ = decision.next_wakeup;
    if (!Apply(decision, started)) break;
  }
}

void FifoGangScheduler::Submit(const ReplayJob& job) {
  NoteSubmitted(job);
  waiting_.push_back(job.id);
}

void FifoGangScheduler::Schedule(double /*now*/, std::vector<int>& started) {
  while (!waiting_.empty()) {
    const ReplayJob& job = workload_.jobs[waiting_.front()];
    if (!TryStart(job)) break;  // Strict order: the head blocks everyone behind it.
    waiting_.pop_front();
    started.push_back(job.id);
  }
}

}  // namespace gangplank::simulator

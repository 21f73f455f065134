#include "simulator/spot/spot_scheduler.h"

#include <algorithm>
#include <unordered_map>

namespace gangplank::simulator {
namespace {

// Takes out, in order, the items that are due; the others stay, in order.
template <typename T, typename Due>
std::vector<T> TakeDue(std::vector<T>& items, Due due) {
  std::vector<T> taken, kept;
  for (T& item : items) (due(item) ? taken : kept).push_back(std::move(item));
  items = std::move(kept);
  return taken;
}

}  // namespace

SpotGangplankScheduler::SpotGangplankScheduler(const engine::Cluster& cluster, const Workload& workload,
                                               std::uint64_t seed, std::unique_ptr<engine::ScoringPolicy> policy,
                                               std::vector<NodePreemption> preemptions, SpotSettings settings)
    : GangplankScheduler(cluster, workload, seed, std::move(policy)),
      settings_(std::move(settings)),
      preemptions_(std::move(preemptions)),
      state_(workload.jobs.size()) {}

void SpotGangplankScheduler::Schedule(double now, std::vector<int>& started) {
  // Spot events first, so that the round sees the cluster as it is now (cordons, freed GPUs, requeued gangs).
  ReplaceNodes(now);
  RequeueFailed(now);
  ReceiveNotices(now);
  DecideSpot(now);
  TerminateNodes(now);
  GangplankScheduler::Schedule(now, started);
}

void SpotGangplankScheduler::Finish(const ReplayJob& job) {
  GangplankScheduler::Finish(job);
  state_[job.id] = JobSpotState{};  // A gang may finish while it checkpoints: nothing more to do for it.
}

double SpotGangplankScheduler::NextWakeup(double now) const {
  double next = std::min(GangplankScheduler::NextWakeup(now), spot_wakeup_);
  if (next_notice_ < preemptions_.size()) next = std::min(next, preemptions_[next_notice_].notice_at);
  for (const NodePreemption& p : under_notice_) next = std::min(next, p.terminate_at);
  for (const NodePreemption& p : gone_) next = std::min(next, p.replaced_at);
  for (int job : broken_) next = std::min(next, *state_[job].failed_until);
  // Acknowledgements due before their deadline: the engine evicts on them. Only while some node is under notice can a
  // gang be checkpointing.
  if (under_notice_.empty()) return next;
  for (int job : running_jobs()) {
    const JobSpotState& s = state_[job];
    if (s.requested_at && s.ack_at > now && s.ack_at <= s.deadline) next = std::min(next, s.ack_at);
  }
  return next;
}

void SpotGangplankScheduler::ReplaceNodes(double now) {
  for (const NodePreemption& p : TakeDue(gone_, [&](const NodePreemption& q) { return q.replaced_at <= now; })) {
    cluster_.SetUnschedulable(p.node, false);  // The replacement node joins, empty.
  }
}

void SpotGangplankScheduler::RequeueFailed(double now) {
  for (int job : TakeDue(broken_, [&](int job) { return *state_[job].failed_until <= now; })) {
    state_[job] = JobSpotState{};
    RequeueBroken(workload_.jobs[job]);
  }
}

void SpotGangplankScheduler::ReceiveNotices(double now) {
  for (; next_notice_ < preemptions_.size() && preemptions_[next_notice_].notice_at <= now; ++next_notice_) {
    const NodePreemption& p = preemptions_[next_notice_];
    cluster_.SetUnschedulable(p.node, true);  // Never planned for new gangs from now on.
    under_notice_.push_back(p);
    ++counters_.notices;
  }
}

std::vector<engine::GangOnNodes> SpotGangplankScheduler::AffectedGangs(double now, std::vector<int>& jobs) const {
  std::vector<engine::GangOnNodes> gangs;
  auto noticed = [&](engine::NodeId node) {
    return std::any_of(under_notice_.begin(), under_notice_.end(),
                       [&](const NodePreemption& q) { return q.node == node; });
  };
  for (int job : running_jobs()) {
    engine::GangOnNodes gang;
    for (const engine::Allocation& a : AllocationsOf(job)) gang.nodes.push_back(a.node);
    if (std::none_of(gang.nodes.begin(), gang.nodes.end(), noticed)) continue;
    const JobSpotState& s = state_[job];
    gang.name = "job-" + std::to_string(job);
    if (s.requested_at) gang.checkpoint_deadline = s.deadline;
    gang.checkpoint_done = s.requested_at.has_value() && s.ack_at <= now;
    gangs.push_back(std::move(gang));
    jobs.push_back(job);
  }
  return gangs;
}

void SpotGangplankScheduler::DecideSpot(double now) {
  spot_wakeup_ = std::numeric_limits<double>::infinity();
  if (settings_.engine.policy == engine::SpotPolicy::kIgnore || under_notice_.empty()) return;
  std::vector<engine::NodeNotice> notices;
  for (const NodePreemption& p : under_notice_) notices.push_back({p.node, p.notice_at, p.terminate_at});
  std::vector<int> jobs;
  const std::vector<engine::GangOnNodes> gangs = AffectedGangs(now, jobs);
  const engine::SpotPlan plan = engine::PlanSpotReclaim(notices, gangs, now, settings_.engine);
  std::unordered_map<std::string, int> job_of;
  for (size_t i = 0; i < gangs.size(); ++i) job_of.emplace(gangs[i].name, jobs[i]);
  for (const engine::SpotDecision& d : plan.decisions) Apply(d, job_of.at(d.gang), now);
  spot_wakeup_ = plan.next_wakeup;
}

void SpotGangplankScheduler::Apply(const engine::SpotDecision& d, int job, double now) {
  JobSpotState& s = state_[job];
  if (d.action == engine::SpotAction::kWait) return;
  if (d.action == engine::SpotAction::kRequestCheckpoint) {
    s.requested_at = now;
    s.deadline = d.deadline;
    s.ack_at = now + settings_.checkpoint_write_seconds;
    ++counters_.gangs_noticed;
    ++counters_.checkpoints_requested;
    RunningGangOf(job)->terminating = true;  // Leaving anyway: never a reclaim victim.
    return;
  }
  std::optional<double> checkpoint_at;
  if (!s.requested_at) {
    ++counters_.gangs_noticed;
    ++counters_.evicted_without_checkpoint;
  } else if (d.checkpointed) {
    ++counters_.checkpoints_in_time;
    checkpoint_at = s.requested_at;  // The checkpoint holds the progress made until it was asked for.
  } else {
    ++counters_.checkpoints_late;
  }
  s = JobSpotState{};
  EvictWhole(workload_.jobs[job], checkpoint_at);
}

void SpotGangplankScheduler::TerminateNodes(double now) {
  for (const NodePreemption& p :
       TakeDue(under_notice_, [&](const NodePreemption& q) { return q.terminate_at <= now; })) {
    ++counters_.nodes_lost;
    std::vector<int> victims;  // Collected first: breaking a job reorders the running list.
    for (int job : running_jobs()) {
      const auto& held = AllocationsOf(job);
      if (std::any_of(held.begin(), held.end(), [&](const engine::Allocation& a) { return a.node == p.node; })) {
        victims.push_back(job);
      }
    }
    for (int job : victims) {
      const ReplayJob& j = workload_.jobs[job];
      BreakRunning(j, p.node);
      ++counters_.jobs_killed;
      counters_.gangs_broken += j.pods.size() > 1 ? 1 : 0;
      state_[job] = JobSpotState{};
      state_[job].failed_until = now + settings_.failure_detection_seconds;
      broken_.push_back(job);
    }
    gone_.push_back(p);
  }
}

}  // namespace gangplank::simulator

// FaultsScheduler under restart-gang: the adapter around the engine's PlanGangRecovery. It tells the engine what the
// operator's cache would read (faulty nodes, failed members, checkpoint requests and acknowledgements, restarts so
// far) and applies each decision.
#include <algorithm>
#include <unordered_map>

#include "simulator/faults/faults_scheduler.h"

namespace gangplank::simulator {
namespace {

std::string NodeName(engine::NodeId node) { return "node-" + std::to_string(node); }
std::string GangName(int job) { return "job-" + std::to_string(job); }

// What the operator's cache reads off a node out of service. A failed GPU is the device plugin withdrawing it: the
// node offers one GPU less, which restarts nobody while its pods fit in the rest but blames the node for the member
// that died on it.
engine::NodeFault NodeFaultOf(const InjectedFault& f, const engine::Cluster& cluster) {
  engine::NodeFault n;
  n.node = NodeName(f.node);
  n.since = f.at;
  switch (f.kind) {
    case FaultKind::kHost:
      n.cause = engine::FaultCause::kNodeNotReady;
      n.signal = "Ready=Unknown";
      break;
    case FaultKind::kMaintenance:
      n.cause = engine::FaultCause::kQuarantine;
      n.signal = "cordoned for unplanned maintenance";
      n.host_alive = true;
      break;
    default:
      n.cause = engine::FaultCause::kGpuShortfall;
      n.signal = "nvidia.com/gpu allocatable fell by one";
      n.host_alive = true;
      n.gpus_allocatable = cluster.spec(f.node).gpu_count - 1;
      n.gpus_allocated = cluster.spec(f.node).gpu_count - cluster.state(f.node).FullyFreeGpus();
      break;
  }
  return n;
}

}  // namespace

std::vector<engine::NodeFault> FaultsScheduler::EngineNodeFaults() const {
  std::vector<engine::NodeFault> nodes;
  for (const InjectedFault& f : out_of_service_) nodes.push_back(NodeFaultOf(f, cluster_));
  return nodes;
}

std::vector<int> FaultsScheduler::JobsToAsk() const {
  // Broken jobs waiting for a decision, and running jobs on a node out of service or asked to checkpoint.
  std::vector<int> jobs;
  for (int job : stopped_) {
    if (!state_[job].release_at) jobs.push_back(job);
  }
  if (out_of_service_.empty()) return jobs;
  for (int job : running_jobs()) {
    const auto& held = AllocationsOf(job);
    const bool on_faulty = std::any_of(held.begin(), held.end(), [&](const engine::Allocation& a) {
      return std::any_of(out_of_service_.begin(), out_of_service_.end(),
                         [&](const InjectedFault& f) { return f.node == a.node; });
    });
    if (on_faulty || state_[job].requested_at) jobs.push_back(job);
  }
  return jobs;
}

engine::GangHealth FaultsScheduler::HealthOf(int job, double now) const {
  const JobState& s = state_[job];
  engine::GangHealth g;
  g.name = GangName(job);
  g.config = settings_.recovery;
  if (s.broken) {
    for (engine::NodeId node : s.nodes) g.nodes.push_back(NodeName(node));
  } else {
    for (const engine::Allocation& a : AllocationsOf(job)) g.nodes.push_back(NodeName(a.node));
  }
  // Every lost member is signalled (a Failed pod, or its lost host): the below-minimum rule is not needed here.
  g.members = g.min_members = static_cast<int>(workload_.jobs[job].pods.size());
  g.member_faults = s.member_faults;
  g.restarts = s.restarts;
  g.last_restart_at = s.last_restart_at;
  if (s.requested_at) {
    g.checkpoint_deadline = s.deadline;
    g.checkpoint_done = s.ack_at <= now;
    if (g.checkpoint_done) g.checkpoint_done_at = s.ack_at;
  }
  return g;
}

void FaultsScheduler::DecideRecovery(double now) {
  recovery_wakeup_ = std::numeric_limits<double>::infinity();
  const std::vector<int> jobs = JobsToAsk();
  if (jobs.empty()) return;
  std::vector<engine::GangHealth> gangs;
  std::unordered_map<std::string, int> job_of;
  for (int job : jobs) {
    gangs.push_back(HealthOf(job, now));
    job_of.emplace(gangs.back().name, job);
  }
  const engine::RecoveryPlan plan = engine::PlanGangRecovery(EngineNodeFaults(), gangs, now);
  std::vector<int> decided;
  for (const engine::RecoveryDecision& d : plan.decisions) {
    decided.push_back(job_of.at(d.gang));
    Apply(d, decided.back(), now);
  }
  // A broken gang the engine has nothing against any more (its host came back within the grace) restarts anyway: its
  // pods there are gone.
  for (int job : jobs) {
    const JobState& s = state_[job];
    if (s.broken && !s.release_at && std::find(decided.begin(), decided.end(), job) == decided.end()) Requeue(job, now);
  }
  recovery_wakeup_ = plan.next_wakeup;
}

void FaultsScheduler::Apply(const engine::RecoveryDecision& d, int job, double now) {
  JobState& s = state_[job];
  switch (d.action) {
    case engine::RecoveryAction::kWait: return;
    case engine::RecoveryAction::kRequestCheckpoint:
      s.requested_at = now;
      s.deadline = d.deadline;
      s.ack_at = now + settings_.checkpoint_write_seconds;
      s.hit_at = s.hit_at.value_or(d.fault_since);
      if (engine::RunningGang* running = RunningGangOf(job)) running->terminating = true;  // Leaving anyway.
      return;
    case engine::RecoveryAction::kRestart: RestartWhole(d, job, now); return;
    case engine::RecoveryAction::kFail: FailJob(job, now); return;
  }
}

void FaultsScheduler::RestartWhole(const engine::RecoveryDecision& d, int job, double now) {
  JobState& s = state_[job];
  if (d.charged) {  // Only the job's own failures count against its limit and backoff.
    ++s.restarts;
    s.last_restart_at = now;
  }
  if (s.broken) {
    Requeue(job, now);
    return;
  }
  // Still running (on a live host): evicted whole, keeping the progress made until the checkpoint was asked for.
  const std::optional<double> checkpoint_at = d.checkpointed ? s.requested_at : std::nullopt;
  counters_.checkpointed_restarts += d.checkpointed ? 1 : 0;
  NoteInterrupted(job);
  ++counters_.restarts;
  s.hit_at = s.hit_at.value_or(d.fault_since);
  s.requested_at.reset();
  EvictWhole(workload_.jobs[job], checkpoint_at);
  NoteRequeued(job, now);
}

void FaultsScheduler::FailJob(int job, double now) {
  // Failed past its restart limit: left to its user, who resubmits it as a new job (restarts counted afresh). The
  // replay keeps its pods' GPUs held until then (gangplank would evict them at once; no run below reaches the limit).
  JobState& s = state_[job];
  ++counters_.jobs_failed;
  if (!s.broken) Stop(job, AllocationsOf(job).front().node, now);
  s.release_at = now + settings_.user_notice_seconds;
  s.restarts = 0;
  s.last_restart_at.reset();
}

}  // namespace gangplank::simulator

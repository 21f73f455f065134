#include "simulator/faults/faults_scheduler.h"

#include <algorithm>

namespace gangplank::simulator {

FaultsScheduler::FaultsScheduler(const engine::Cluster& cluster, const Workload& workload, std::uint64_t seed,
                                 std::unique_ptr<engine::ScoringPolicy> policy, std::vector<InjectedFault> faults,
                                 FaultSettings settings)
    : GangplankScheduler(cluster, workload, seed, std::move(policy)),
      settings_(std::move(settings)),
      faults_(std::move(faults)),
      state_(workload.jobs.size()) {}

void FaultsScheduler::Schedule(double now, std::vector<int>& started) {
  // Faults first, so that the round sees the cluster as it is now (cordons, freed GPUs, requeued gangs).
  RepairNodes(now);
  ReleaseDue(now);
  InjectFaults(now);
  if (settings_.handling == FaultHandling::kRestartGang) DecideRecovery(now);
  GangplankScheduler::Schedule(now, started);
  NoteRecovered(now, started);
}

void FaultsScheduler::Finish(const ReplayJob& job) {
  GangplankScheduler::Finish(job);
  state_[job.id] = JobState{};  // A job may finish while it checkpoints: nothing more to do for it.
}

double FaultsScheduler::NextWakeup(double now) const {
  double next = std::min(GangplankScheduler::NextWakeup(now), recovery_wakeup_);
  if (next_fault_ < faults_.size()) next = std::min(next, faults_[next_fault_].at);
  for (const InjectedFault& f : out_of_service_) next = std::min(next, f.repaired_at);
  for (int job : stopped_) next = std::min(next, state_[job].release_at.value_or(next));
  // Acknowledgements the engine restarts on. Only a node out of service makes the engine ask for a checkpoint.
  if (out_of_service_.empty()) return next;
  for (int job : running_jobs()) {
    const JobState& s = state_[job];
    if (s.requested_at && s.ack_at > now) next = std::min(next, s.ack_at);
  }
  return next;
}

void FaultsScheduler::RepairNodes(double now) {
  std::vector<InjectedFault> still_out;
  for (const InjectedFault& f : out_of_service_) {
    if (f.repaired_at > now) still_out.push_back(f);
  }
  for (const InjectedFault& f : out_of_service_) {
    const bool out =
        std::any_of(still_out.begin(), still_out.end(), [&](const InjectedFault& o) { return o.node == f.node; });
    if (f.repaired_at <= now && !out) cluster_.SetUnschedulable(f.node, false);
  }
  out_of_service_ = std::move(still_out);
}

void FaultsScheduler::ReleaseDue(double now) {
  const std::vector<int> stopped = stopped_;  // Requeue edits the list.
  for (int job : stopped) {
    if (state_[job].release_at && *state_[job].release_at <= now) Requeue(job, now);
  }
}

void FaultsScheduler::InjectFaults(double now) {
  for (; next_fault_ < faults_.size() && faults_[next_fault_].at <= now; ++next_fault_) {
    const InjectedFault& f = faults_[next_fault_];
    ++counters_.faults;
    if (TakesNodeOut(f.kind)) {
      cluster_.SetUnschedulable(f.node, true);  // Never planned for new gangs until repaired.
      out_of_service_.push_back(f);
    }
    const std::vector<int> victims = JobsHit(f);  // Collected first: stopping a job reorders the running list.
    counters_.faults_on_jobs += victims.empty() ? 0 : 1;
    for (int job : victims) Hit(job, f, now);
  }
}

std::vector<int> FaultsScheduler::JobsHit(const InjectedFault& fault) const {
  // A GPU or software fault hits the job holding that GPU; a lost or drained host every job with a pod there.
  const bool one_gpu = fault.kind == FaultKind::kGpu || fault.kind == FaultKind::kSoftware;
  std::vector<int> hit;
  for (int job : running_jobs()) {
    for (const engine::Allocation& a : AllocationsOf(job)) {
      if (a.node != fault.node) continue;
      if (!one_gpu || std::find(a.gpus.begin(), a.gpus.end(), fault.gpu) != a.gpus.end()) hit.push_back(job);
      break;
    }
  }
  return hit;
}

void FaultsScheduler::Hit(int job, const InjectedFault& fault, double now) {
  JobState& s = state_[job];
  if (settings_.handling == FaultHandling::kRestartGang && fault.kind == FaultKind::kMaintenance) {
    s.hit_at = s.hit_at.value_or(now);  // The host still runs: the engine asks for a checkpoint first.
    return;
  }
  Stop(job, fault.node, now);
  switch (settings_.handling) {
    case FaultHandling::kRestartGang:
      // The operator's cache sees the pod Failed; a lost host's pods are the NodeFault's.
      if (fault.kind != FaultKind::kHost) {
        s.member_faults.push_back({"job-" + std::to_string(job) + "-pod-on-node-" + std::to_string(fault.node),
                                   "node-" + std::to_string(fault.node), engine::FaultCause::kMemberFailed, now});
      }
      return;
    case FaultHandling::kPerPodReplacement:
      s.release_at = now + ReleaseDelay(job, fault.kind);
      return;
    case FaultHandling::kNoHandling:
      s.release_at = now + settings_.user_notice_seconds;
      ++counters_.jobs_failed;
      return;
  }
}

void FaultsScheduler::Stop(int job, engine::NodeId node, double now) {
  JobState& s = state_[job];
  s.nodes.clear();
  for (const engine::Allocation& a : AllocationsOf(job)) s.nodes.push_back(a.node);
  BreakRunning(workload_.jobs[job], node);  // Its progress stops now; the pods elsewhere hold their GPUs.
  s.broken = true;
  s.hit_at = s.hit_at.value_or(now);
  s.requested_at.reset();
  NoteInterrupted(job);
  stopped_.push_back(job);
}

void FaultsScheduler::NoteRequeued(int job, double now) {
  if (const std::optional<double> hit_at = state_[job].hit_at) counters_.requeue_seconds.push_back(now - *hit_at);
}

void FaultsScheduler::NoteInterrupted(int job) {
  ++counters_.interruptions;
  counters_.interrupted_jobs.push_back(job);
}

void FaultsScheduler::Requeue(int job, double now) {
  RequeueBroken(workload_.jobs[job]);
  NoteRequeued(job, now);
  JobState& s = state_[job];
  s.broken = false;
  s.member_faults.clear();
  s.release_at.reset();
  stopped_.erase(std::find(stopped_.begin(), stopped_.end(), job));
  ++counters_.restarts;
}

double FaultsScheduler::ReleaseDelay(int job, FaultKind kind) const {
  // A lost host's pods are replaced once Kubernetes evicts them; a dead process's pod at once. A job of several pods
  // runs again only once its survivors' collective gave up and they were replaced too.
  const double replaced = kind == FaultKind::kHost ? settings_.failure_detection_seconds : 0;
  if (workload_.jobs[job].pods.size() < 2) return replaced;
  return std::max(replaced, settings_.collective_timeout_seconds);
}

void FaultsScheduler::NoteRecovered(double now, const std::vector<int>& started) {
  for (int job : started) {
    std::optional<double>& hit_at = state_[job].hit_at;
    if (!hit_at) continue;
    counters_.recovery_seconds.push_back(now - *hit_at);
    hit_at.reset();
  }
}

}  // namespace gangplank::simulator

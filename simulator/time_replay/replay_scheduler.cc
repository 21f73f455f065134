#include "simulator/time_replay/replay_scheduler.h"

#include <set>

namespace gangplank::simulator {

ReplayScheduler::ReplayScheduler(const engine::Cluster& cluster, const Workload& workload, std::uint64_t seed)
    : cluster_(cluster),
      workload_(workload),
      rng_(seed),
      allocations_(workload.jobs.size()),
      queue_held_(workload.queues.size(), 0),
      queue_waiting_(workload.queues.size(), 0) {}

engine::PodRequest ReplayScheduler::PodFor(int gpus) {
  engine::PodRequest r;
  r.gpu_count = gpus;
  r.gpu_milli = engine::kMilliPerGpu;
  return r;
}

void ReplayScheduler::NoteSubmitted(const ReplayJob& job) {
  queue_waiting_[job.queue] += job.gpus;
  ++waiting_jobs_;
}

bool ReplayScheduler::PlacePod(const ReplayJob& job, int pod, engine::Allocation allocation) {
  cluster_.Assign(allocation);
  if (placement_policy_ != nullptr) placement_policy_->OnAssigned(allocation, PodFor(job.pods[pod]));
  std::vector<engine::Allocation>& held = allocations_[job.id];
  held.push_back(std::move(allocation));
  const int gpus = job.pods[pod];
  queue_held_[job.queue] += gpus;
  queue_waiting_[job.queue] -= gpus;
  if (held.size() < job.pods.size()) {
    held_by_incomplete_ += gpus;
    return false;
  }
  held_by_incomplete_ -= job.gpus - gpus;  // The earlier pods stop counting as incomplete.
  running_gpus_ += job.gpus;
  --waiting_jobs_;
  return true;
}

void ReplayScheduler::ReleaseOne(const engine::Allocation& a) {
  cluster_.Release(a);
  if (placement_policy_ != nullptr) placement_policy_->OnReleased(a, PodFor(static_cast<int>(a.gpus.size())));
}

void ReplayScheduler::ReleaseAll(const ReplayJob& job) {
  for (const engine::Allocation& a : allocations_[job.id]) ReleaseOne(a);
  allocations_[job.id].clear();
  queue_held_[job.queue] -= job.gpus;
  running_gpus_ -= job.gpus;
}

void ReplayScheduler::Finish(const ReplayJob& job) { ReleaseAll(job); }

void ReplayScheduler::Evict(const ReplayJob& job, std::optional<double> checkpoint_at, EvictionCause cause) {
  ReleaseAll(job);
  NoteSubmitted(job);
  evicted_.push_back(Eviction{job.id, checkpoint_at, cause});
}

void ReplayScheduler::Break(const ReplayJob& job, engine::NodeId dead_node) {
  std::vector<engine::Allocation>& held = allocations_[job.id];
  int lost = 0;
  for (auto it = held.begin(); it != held.end();) {
    if (it->node != dead_node) {
      ++it;
      continue;
    }
    ReleaseOne(*it);
    lost += static_cast<int>(it->gpus.size());
    it = held.erase(it);
  }
  queue_held_[job.queue] -= lost;
  running_gpus_ -= job.gpus;
  held_by_incomplete_ += job.gpus - lost;  // The survivors hold GPUs for a job that cannot run.
  evicted_.push_back(Eviction{job.id, std::nullopt});
}

void ReplayScheduler::ReleaseBroken(const ReplayJob& job) {
  int survivors = 0;
  for (const engine::Allocation& a : allocations_[job.id]) survivors += static_cast<int>(a.gpus.size());
  // ReleaseAll takes the whole job off the running and held counters; the dead pods are already off.
  running_gpus_ += job.gpus;
  queue_held_[job.queue] += job.gpus - survivors;
  held_by_incomplete_ -= survivors;
  ReleaseAll(job);
  NoteSubmitted(job);
}

int ReplayScheduler::RacksSpanned(int job) const {
  std::set<engine::DomainId> racks;
  const int level = cluster_.topology().levels() - 1;
  if (level < 0) return allocations_[job].empty() ? 0 : 1;
  for (const engine::Allocation& a : allocations_[job]) racks.insert(cluster_.topology().DomainOf(a.node, level));
  return static_cast<int>(racks.size());
}

}  // namespace gangplank::simulator

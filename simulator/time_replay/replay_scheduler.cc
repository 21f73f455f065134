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

void ReplayScheduler::ReleaseAll(const ReplayJob& job) {
  for (const engine::Allocation& a : allocations_[job.id]) {
    cluster_.Release(a);
    if (placement_policy_ != nullptr) {
      placement_policy_->OnReleased(a, PodFor(static_cast<int>(a.gpus.size())));
    }
  }
  allocations_[job.id].clear();
  queue_held_[job.queue] -= job.gpus;
  running_gpus_ -= job.gpus;
}

void ReplayScheduler::Finish(const ReplayJob& job) { ReleaseAll(job); }

void ReplayScheduler::Evict(const ReplayJob& job) {
  ReleaseAll(job);
  NoteSubmitted(job);
  evicted_.push_back(job.id);
}

int ReplayScheduler::RacksSpanned(int job) const {
  std::set<engine::DomainId> racks;
  const int level = cluster_.topology().levels() - 1;
  if (level < 0) return allocations_[job].empty() ? 0 : 1;
  for (const engine::Allocation& a : allocations_[job]) racks.insert(cluster_.topology().DomainOf(a.node, level));
  return static_cast<int>(racks.size());
}

}  // namespace gangplank::simulator

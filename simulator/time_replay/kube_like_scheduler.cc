#include "simulator/time_replay/kube_like_scheduler.h"

#include <algorithm>

#include "engine/place_pod.h"

namespace gangplank::simulator {

KubeLikeScheduler::KubeLikeScheduler(const engine::Cluster& cluster, const Workload& workload, std::uint64_t seed)
    : ReplayScheduler(cluster, workload, seed) {
  placement_policy_ = &policy_;
  int max_gpus = 0;
  for (engine::NodeId n = 0; n < cluster.size(); ++n) max_gpus = std::max(max_gpus, cluster.spec(n).gpu_count);
  for (const ReplayJob& job : workload.jobs) {
    for (int size : job.pods) max_gpus = std::max(max_gpus, size);
  }
  pending_.resize(static_cast<size_t>(max_gpus) + 1);
}

void KubeLikeScheduler::Submit(const ReplayJob& job) {
  NoteSubmitted(job);
  for (int p = 0; p < static_cast<int>(job.pods.size()); ++p) pending_[job.pods[p]].emplace_back(job.id, p);
}

int KubeLikeScheduler::MaxFreeGpusOnANode() const {
  int best = 0;
  for (engine::NodeId n = 0; n < cluster_.size(); ++n) best = std::max(best, cluster_.state(n).FullyFreeGpus());
  return best;
}

void KubeLikeScheduler::Schedule(double /*now*/, std::vector<int>& started) {
  int room = MaxFreeGpusOnANode();
  while (room > 0) {
    // The earliest pending pod that fits somewhere (pods too large for every node stay parked).
    int size = -1;
    for (int s = 1; s <= room && s < static_cast<int>(pending_.size()); ++s) {
      if (!pending_[s].empty() && (size < 0 || pending_[s].front() < pending_[size].front())) size = s;
    }
    if (size < 0) break;
    const auto [job_id, pod] = pending_[size].front();
    const ReplayJob& job = workload_.jobs[job_id];
    std::optional<engine::Allocation> allocation = engine::PlacePod(cluster_, PodFor(size), policy_, rng_);
    if (!allocation) break;  // Cannot happen while `room` is right; never loop on it.
    pending_[size].pop_front();
    if (PlacePod(job, pod, std::move(*allocation))) started.push_back(job_id);
    room = MaxFreeGpusOnANode();
  }
}

}  // namespace gangplank::simulator

// The kube-scheduler-like baseline: every pod is scheduled on its own as it comes, with no notion of a
// gang, scored by least-allocated spreading. Pods that fit nowhere wait and are retried (in arrival
// order among those that fit) whenever capacity frees. A job runs only once all its pods are placed,
// so the pods of a partially placed gang hold GPUs doing nothing; two such gangs can deadlock.
#pragma once

#include <deque>
#include <utility>
#include <vector>

#include "engine/policies/least_allocated/least_allocated.h"
#include "simulator/time_replay/replay_scheduler.h"

namespace gangplank::simulator {

class KubeLikeScheduler : public ReplayScheduler {
 public:
  KubeLikeScheduler(const engine::Cluster& cluster, const Workload& workload, std::uint64_t seed);
  std::string_view Name() const override { return "kube-like"; }
  void Submit(const ReplayJob& job) override;
  void Schedule(double now, std::vector<int>& started) override;

 private:
  int MaxFreeGpusOnANode() const;

  engine::policies::LeastAllocatedPolicy policy_;
  // Pending pods (job id, pod index) by pod size, each in arrival order.
  std::vector<std::deque<std::pair<int, int>>> pending_;
};

}  // namespace gangplank::simulator

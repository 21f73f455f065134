// What the time replay asks of a scheduler, and the accounting all three share: each scheduler owns a
// copy of the cluster model, the allocations of every job, and per-queue counters of GPUs held and
// GPUs still wanted by waiting jobs. The event loop (replay_engine.h) only calls Submit, Finish,
// Schedule and TakeEvicted and reads the counters.
#pragma once

#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/cluster.h"
#include "engine/random.h"
#include "engine/scoring_policy.h"
#include "simulator/time_replay/prediction_record.h"
#include "simulator/time_replay/replay_workload.h"

namespace gangplank::simulator {

// A job taken off the cluster whole. `checkpoint_at`: when it asked for a fresh checkpoint that it
// then completed (its progress up to then is kept); unset: only its periodic checkpoints count.
// Why a job was taken off the cluster, for the replay's tallies.
enum class EvictionCause {
  kOther,    // Reclaim, preemption, a start timeout, a spot notice, a fault.
  kOverrun,  // Ended for overstaying a backfill made on its predicted runtime.
  kMove,     // Moved by consolidation into free GPUs elsewhere.
};

struct Eviction {
  int job = 0;
  std::optional<double> checkpoint_at;
  EvictionCause cause = EvictionCause::kOther;
};

class ReplayScheduler {
 public:
  ReplayScheduler(const engine::Cluster& cluster, const Workload& workload, std::uint64_t seed);
  virtual ~ReplayScheduler() = default;
  ReplayScheduler(const ReplayScheduler&) = delete;
  ReplayScheduler& operator=(const ReplayScheduler&) = delete;

  virtual std::string_view Name() const = 0;
  // A job arrives; it waits until Schedule starts it.
  virtual void Submit(const ReplayJob& job) = 0;
  // Places what it can at `now` and appends the jobs that started (every pod placed) to `started`.
  virtual void Schedule(double now, std::vector<int>& started) = 0;

  // The next time after `now` at which Schedule could decide differently with no arrival or
  // completion in between (a time-based rule starts to apply), or infinity. The event loop wakes the
  // scheduler then, as an operator's periodic resync would.
  virtual double NextWakeup(double /*now*/) const { return std::numeric_limits<double>::infinity(); }
  // A started job ends: its GPUs return to the pool.
  virtual void Finish(const ReplayJob& job);
  // Jobs evicted (whole) since the last call, running until then; they wait again (or, broken by a
  // lost node, hold GPUs until they are noticed failed). Only schedulers that reclaim or see spot
  // notices evict.
  std::vector<Eviction> TakeEvicted() { return std::exchange(evicted_, {}); }
  // What it predicted of runtimes, if it predicts them (the replay adds the overruns' lost work).
  virtual PredictionRecord Predictions() const { return {}; }

  const engine::Cluster& cluster() const { return cluster_; }
  // GPUs held per queue (by running jobs and by pods of jobs not yet started).
  const std::vector<int>& queue_held() const { return queue_held_; }
  // GPUs asked for by pods not yet placed, per queue.
  const std::vector<int>& queue_waiting() const { return queue_waiting_; }
  int running_gpus() const { return running_gpus_; }
  // GPUs held by pods of jobs that have not started (incomplete gangs). Zero for all-or-nothing.
  int held_by_incomplete() const { return held_by_incomplete_; }
  int waiting_jobs() const { return waiting_jobs_; }
  // Racks a started job's pods occupy (for topology metrics).
  int RacksSpanned(int job) const;
  // Pods of a job placed so far (all of them once it started, until it finishes).
  int PlacedPods(int job) const { return static_cast<int>(allocations_[job].size()); }

 protected:
  // Bookkeeping: job arrived (pods waiting).
  void NoteSubmitted(const ReplayJob& job);
  // Applies one pod's allocation for `job`; returns true when this completes the job's pods.
  bool PlacePod(const ReplayJob& job, int pod, engine::Allocation allocation);
  static engine::PodRequest PodFor(int gpus);
  // Takes a running job off the cluster and makes it wait again (all its pods); reported by TakeEvicted.
  void Evict(const ReplayJob& job, std::optional<double> checkpoint_at = std::nullopt,
             EvictionCause cause = EvictionCause::kOther);
  // A node under the job died: its pods there are gone, the others hold their GPUs without progress
  // (counted as held by an incomplete gang) until ReleaseBroken. Reported by TakeEvicted now, since
  // the job's work stops now.
  void Break(const ReplayJob& job, engine::NodeId dead_node);
  // The broken job is noticed failed: its remaining pods are released and it waits again.
  void ReleaseBroken(const ReplayJob& job);
  // The job's allocations while it is placed.
  const std::vector<engine::Allocation>& AllocationsOf(int job) const { return allocations_[job]; }

  engine::Cluster cluster_;
  const Workload& workload_;
  engine::Rng rng_;
  // The policy that chose the placements, told of every assignment and release (may be null).
  engine::ScoringPolicy* placement_policy_ = nullptr;

 private:
  void ReleaseOne(const engine::Allocation& allocation);
  void ReleaseAll(const ReplayJob& job);

  std::vector<std::vector<engine::Allocation>> allocations_;  // Per job.
  std::vector<Eviction> evicted_;
  std::vector<int> queue_held_, queue_waiting_;
  int running_gpus_ = 0;
  int held_by_incomplete_ = 0;
  int waiting_jobs_ = 0;
};

}  // namespace gangplank::simulator

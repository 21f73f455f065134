// What each queue of a pool used in the past: GPU-seconds per queue in fixed-width time buckets over a
// sliding window, read back as a decayed average of the GPUs the queue held.
//
// Why: fair shares computed from the present alone let a queue that ran the whole pool all week meet a
// queue that was idle on equal terms the moment both want GPUs. KAI Scheduler's time-based fair share and
// Kueue's admission fair sharing (usage with a half-life) both remember recent usage so that the queue
// that had less goes first. The round counts AdmissionQueue::past_usage (engine/admission/admission_input.h)
// beside what a queue holds now; this ledger is where that number comes from. It keeps plain buckets the
// caller can list and restore, so the operator can persist it in a status field and the simulator can feed
// it from its running jobs.
//
// Arithmetic: bucket k covers [k*w, (k+1)*w), w = window / buckets; the window at `now` is the bucket
// holding `now` and the buckets-1 before it. A bucket's usage is aged from the midpoint of its elapsed part
// and weighs 2^(-age/half_life). DecayedGpus = sum(gpu_seconds * weight) / sum(elapsed_seconds * weight)
// over the window, so a queue that held 8 GPUs the whole window reads 8 whatever the half-life, and time
// before the ledger's first record counts as holding nothing.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace gangplank::engine {

struct UsageDecayConfig {
  double half_life_seconds = 0;               // 0: time-based fair share off (PastUsage reads 0).
  double window_seconds = 7 * 24 * 3600.0;    // Usage older than this is forgotten.
  double weight = 1;                          // Past GPUs count this much beside GPUs held now.
  int buckets = 168;                          // Hourly over a week.

  bool enabled() const { return half_life_seconds > 0; }
  double bucket_seconds() const { return window_seconds / buckets; }
};

// One bucket of one queue, for persisting the ledger. `start` is the bucket's start in the caller's
// seconds (a multiple of the bucket width).
struct UsageBucket {
  std::string queue;
  double start = 0;
  double gpu_seconds = 0;
};

class UsageLedger {
 public:
  // Throws std::invalid_argument for a negative or non-finite half-life or weight, a window that is not
  // positive and finite, or fewer than one bucket.
  explicit UsageLedger(UsageDecayConfig config = {});

  const UsageDecayConfig& config() const { return config_; }
  // `queue` held `gpus` over [from, to); split across the buckets it spans. Throws std::invalid_argument
  // for negative or non-finite GPUs or times.
  void Record(const std::string& queue, double gpus, double from, double to);
  // Decayed time-weighted average of the GPUs `queue` held over the window ending at `now` (no decay when
  // the half-life is 0).
  double DecayedGpus(const std::string& queue, double now) const;
  // What the admission round counts beside held GPUs: weight * DecayedGpus, 0 when decay is off.
  double PastUsage(const std::string& queue, double now) const;
  // GPU-hours `queue` used within the window ending at `now`, undecayed.
  double GpuHours(const std::string& queue, double now) const;
  // Forgets buckets that left the window ending at `now`.
  void Prune(double now);

  // Every bucket, by queue then time; Restore adds them back (to an empty ledger: the same ledger).
  std::vector<UsageBucket> Buckets() const;
  void Restore(const std::vector<UsageBucket>& buckets);

 private:
  // The decay at one instant: the bucket holding it, seconds of that bucket elapsed, the weight of a full
  // bucket's table entry relative to now (scale), and the weight of the current bucket.
  struct Decay {
    std::int64_t cur = 0;
    double offset = 0, scale = 1, current = 1;
  };
  std::int64_t BucketOf(double t) const;
  Decay DecayAt(double now) const;
  double Weight(std::int64_t k, const Decay& d) const;  // Of bucket k, within the window.
  double Denominator(const Decay& d) const;             // Sum of elapsed seconds times weight over the window.

  UsageDecayConfig config_;
  double width_ = 0;
  // 2^(-(j - 0.5) * width / half_life) for j = 1..buckets-1: a full bucket j back, aged from its
  // midpoint, relative to the start of the current bucket. Index 0 unused.
  std::vector<double> full_weight_;
  double full_weight_sum_ = 0;
  std::map<std::string, std::map<std::int64_t, double>> usage_;  // Queue -> bucket index -> GPU-seconds.
};

}  // namespace gangplank::engine

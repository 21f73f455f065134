// Figures per scheduler from a replay, and the CSV/JSON files they are written to.
//
// Definitions: JCT = end - arrival; queueing delay = start - arrival (start = every pod placed); both over
// jobs that started (JCT over jobs that finished). Percentiles are nearest-rank. Utilisation = GPU-seconds
// of started jobs / (GPUs x window), window = [0, last arrival]. Jain's index is computed at every
// sample over the queues with a positive fair share, on x = GPUs held / fair share, and averaged over
// samples; the weekly index is the same on each queue's GPU-hours held over its fair-share GPU-hours in
// each week (weekly_jain.h), averaged over weeks. "Share vs fair" for a queue is the time average of its
// held GPUs divided by the time average of its fair share, over samples where its fair share is positive.
#pragma once

#include <string>
#include <vector>

#include "simulator/time_replay/idle_burst.h"
#include "simulator/time_replay/replay_engine.h"
#include "simulator/time_replay/replay_workload.h"

namespace gangplank::simulator {

struct DurationStats {
  int count = 0;
  double mean = 0, p50 = 0, p95 = 0, p99 = 0, max = 0;
};

DurationStats SummarizeDurations(std::vector<double> values);

struct QueueFigures {
  std::string name;
  double mean_held = 0;
  double mean_fair = 0;
  double share_vs_fair = 0;  // mean_held / mean_fair; 0 when the queue never had a fair share.
  DurationStats delay;
};

// Jobs grouped by GPUs asked for, so the wait of large gangs is visible next to the mean.
struct SizeBucket {
  std::string label;  // "1", "2-8", "9-16", "17-24", "25-32", ">32".
  int min_gpus = 0, max_gpus = 0;
  DurationStats delay;
  int jobs = 0;  // Jobs of this size in the workload (started or not).
};

// The buckets' labels and bounds, in order.
std::vector<SizeBucket> SizeBuckets();

struct SchedulerFigures {
  std::string scheduler;
  int jobs = 0, started = 0, finished = 0, never_started = 0;
  int stuck_jobs_holding_gpus = 0, stuck_held_gpus = 0;
  DurationStats jct, delay, gang_delay;  // gang_delay: jobs with more than one pod.
  double utilisation = 0;   // Running jobs only.
  double occupancy = 0;     // Including GPUs held by incomplete gangs.
  double held_incomplete_gpu_seconds = 0;
  int preemptions = 0;           // Evictions of whole gangs.
  int preempted_jobs = 0;        // Jobs evicted at least once.
  double lost_gpu_seconds = 0;   // Work lost to evictions.
  std::vector<SizeBucket> by_size;
  double jain_mean = 0;
  double jain_week_mean = 0;  // Over week-long windows (WindowedJain).
  // The largest burst of a queue idle for a day before it (FindIdleBurst: idle 24 h, burst 24 h), the
  // same for every scheduler, and the mean wait of its jobs in seconds.
  IdleBurst idle_burst;
  double idle_burst_wait = 0;
  int multi_pod_jobs = 0;
  double mean_racks_per_multi_pod_job = 0;
  double multi_pod_jobs_in_one_rack = 0;  // Fraction.
  double makespan_days = 0;
  double wall_seconds = 0;
  std::vector<QueueFigures> queues;
};

SchedulerFigures ComputeFigures(const Workload& workload, const ReplayResult& result);

// summary.csv (one row per scheduler), summary.json (figures, queues and notes), jobs_<s>.csv and
// timeseries_<s>.csv per scheduler. Throws std::runtime_error naming a file it cannot write.
void WriteMetrics(const std::string& out_dir, const Workload& workload, const std::vector<ReplayResult>& results,
                  const std::vector<SchedulerFigures>& figures, const std::vector<std::string>& notes);

}  // namespace gangplank::simulator

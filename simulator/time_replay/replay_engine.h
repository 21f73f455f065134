// The event-driven time replay: jobs arrive at their (scaled) timestamps, a scheduler starts them,
// they run for their durations. Only arrival and completion instants are simulated; between them the
// state is constant, so GPU-seconds are integrated exactly and periodic samples read the current state.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "simulator/time_replay/replay_scheduler.h"
#include "simulator/time_replay/replay_workload.h"

namespace gangplank::simulator {

struct JobOutcome {
  double start = -1;  // First start; -1: never started.
  double end = -1;
  int racks = 0;      // Racks the job's pods occupied (in its last run).
  int preemptions = 0;          // Times the job was evicted.
  double lost_gpu_seconds = 0;  // Work thrown away by evictions (GPUs x time since the last checkpoint).
};

struct ReplaySample {
  double time = 0;
  int running_gpus = 0;        // GPUs of started jobs.
  int held_incomplete = 0;     // GPUs held by pods of jobs not started yet.
  int waiting_jobs = 0;
  std::vector<int> queue_held;       // Per queue: GPUs held (running + incomplete).
  std::vector<double> fair_share;    // Per queue: weighted max-min share of the pool given demand.
  double jain = -1;                  // Jain's index over queues with a fair share; -1 when none.
  int free_whole_nodes = 0;          // Fully free nodes: the largest gang of whole-node pods placeable now.
  int largest_rack_gang_gpus = 0;    // Most fully free GPUs in one rack (see engine/gang/largest_gang.h).
};

struct ReplayResult {
  std::string scheduler;
  int total_gpus = 0;
  std::vector<JobOutcome> jobs;  // Indexed like Workload::jobs.
  std::vector<ReplaySample> samples;
  double window_end = 0;                 // Last arrival: utilisation is measured over [0, window_end].
  double makespan = 0;                   // Last event.
  double running_gpu_seconds = 0;        // Within the window.
  double occupied_gpu_seconds = 0;       // Within the window, including GPUs held by incomplete gangs.
  double held_incomplete_gpu_seconds = 0;  // Whole run.
  int preemptions = 0;                     // Evictions of whole gangs.
  double lost_gpu_seconds = 0;             // Work lost to evictions, under the workload's checkpoint model.
  int moves = 0;                           // ... of which consolidation's moves,
  double move_lost_gpu_seconds = 0;        // and the work they lost.
  int never_started = 0;
  int stuck_jobs_holding_gpus = 0;  // Never started but held some GPUs at the end: a deadlock.
  int stuck_held_gpus = 0;
  double wall_seconds = 0;
  PredictionRecord prediction;  // Of a scheduler that predicts runtimes.
};

struct ReplayConfig {
  double sample_seconds = 3600;
  // Told how many of the trace's jobs have arrived, each time another percent has; may be empty.
  std::function<void(size_t arrived, size_t total)> on_progress;
};

// Jain's fairness index of the allocation-to-fair-share ratios of queues with a positive fair share:
// (sum x)^2 / (n * sum x^2); 1 is perfectly proportional. -1 when no queue has a fair share.
double JainIndex(const std::vector<int>& held, const std::vector<double>& fair_share);

ReplayResult RunReplay(const Workload& workload, ReplayScheduler& scheduler, const ReplayConfig& config);

}  // namespace gangplank::simulator

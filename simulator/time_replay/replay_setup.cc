#include "simulator/time_replay/replay_setup.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <stdexcept>

namespace gangplank::simulator {
namespace {

std::vector<engine::PodRequest> WorkloadPods(const Workload& workload) {
  std::vector<engine::PodRequest> pods;
  for (const ReplayJob& job : workload.jobs) {
    for (int size : job.pods) {
      engine::PodRequest r;
      r.gpu_count = size;
      r.gpu_milli = engine::kMilliPerGpu;
      pods.push_back(r);
    }
  }
  return pods;
}

// Negative settings mean "never".
double NeverIfNegative(double seconds) { return seconds < 0 ? std::numeric_limits<double>::infinity() : seconds; }

}  // namespace

ClusterShape ShapeOf(const TimeReplayOptions& o) {
  return ClusterShape{o.nodes, o.gpus_per_node, o.nodes_per_rack, o.racks_per_row, o.rows_per_zone};
}

PreparedReplay PrepareReplay(const JobTrace& trace, const TimeReplayOptions& options) {
  const ClusterShape shape = ShapeOf(options);
  PreparedReplay p{BuildReplayCluster(shape), {}, {}, {}};
  p.workload = MakeWorkload(trace, p.cluster.total_gpus(), shape.gpus_per_node, options.time_scale);
  p.workload.checkpoint_seconds = options.checkpoint_seconds;
  p.notes = p.workload.notes;
  int largest = 0;
  for (const ReplayJob& job : p.workload.jobs) largest = std::max(largest, job.gpus);
  if (largest > p.cluster.total_gpus()) {
    p.notes.push_back("the largest job asks for " + std::to_string(largest) + " GPUs, more than the cluster's " +
                      std::to_string(p.cluster.total_gpus()) + ": such jobs never start");
  }
  p.pods = WorkloadPods(p.workload);
  return p;
}

void ConfigureGangplank(GangplankScheduler& scheduler, const TimeReplayOptions& options) {
  scheduler.set_reserve_after(NeverIfNegative(options.reserve_after_seconds));
  scheduler.set_reserve_fraction(options.reserve_fraction);
  scheduler.set_reserve_policy(options.reserve_choice == "most-free" ? engine::ReservationChoice::kMostFreeNow
                                                                      : engine::ReservationChoice::kSoonest,
                               options.reserve_share == "below-share" ? engine::ReservationShare::kBelowShare
                                                                      : engine::ReservationShare::kEarmarked);
  engine::ReclaimConfig reclaim;
  reclaim.enabled = options.reclaim;
  reclaim.min_wait_seconds = options.reclaim_after_seconds;
  reclaim.min_runtime_seconds = options.reclaim_min_runtime_seconds;
  reclaim.max_lost_gpu_seconds = options.reclaim_max_lost_gpu_hours * 3600;
  reclaim.max_victims_per_round = options.reclaim_max_per_round;
  reclaim.max_victims_per_window = options.reclaim_max_per_window;
  reclaim.window_seconds = options.reclaim_window_seconds;
  scheduler.set_reclaim(reclaim);
  scheduler.set_consolidation(engine::ConsolidationConfig{options.consolidate, options.consolidate_max_gpus,
                                                          options.consolidate_max_lost_gpu_hours * 3600});
  scheduler.set_no_backfill_after(NeverIfNegative(options.no_backfill_after_seconds));
  engine::UsageDecayConfig usage;
  usage.half_life_seconds = options.usage_half_life_seconds;
  usage.window_seconds = options.usage_window_seconds;
  scheduler.set_usage_decay(usage);
  if (options.predict_runtimes) {
    scheduler.set_runtime_prediction(engine::PredictorConfig{options.predict_min_samples, options.predict_window},
                                     options.backfill_quantile, options.predicted_ends);
  }
}

std::string FormatSetting(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

std::string FormatFixed(double value, int digits) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", digits, value);
  return text;
}

std::vector<std::string> DescribeReplaySetup(const TimeReplayOptions& options, const Workload& workload) {
  const ClusterShape shape = ShapeOf(options);
  const std::string checkpoints = options.checkpoint_seconds > 0
                                      ? "every " + FormatSetting(options.checkpoint_seconds) + " s of a run"
                                      : std::string("none (an evicted job starts over)");
  return {"Trace: " + options.jobs_path + " (" + std::to_string(workload.jobs.size()) + " jobs, " +
              std::to_string(workload.queues.size()) + " virtual clusters as queues; guarantees from " +
              options.vcs_path + ", scaled to the simulated cluster).",
          "Cluster: " + DescribeShape(shape) + ". Jobs above " + std::to_string(shape.gpus_per_node) +
              " GPUs are gangs of whole-node pods plus one pod with the remainder.",
          std::string("Reclaim ") + (options.reclaim ? "on" : "off") + " (after waiting " +
              FormatSetting(options.reclaim_after_seconds) + " s; victims' minimum runtime " +
              FormatSetting(options.reclaim_min_runtime_seconds) + " s, at most " +
              FormatSetting(options.reclaim_max_lost_gpu_hours) + " GPU-hours lost per victim, at most " +
              std::to_string(options.reclaim_max_per_round) + " evictions per round and " +
              std::to_string(options.reclaim_max_per_window) + " per " + FormatSetting(options.reclaim_window_seconds) +
              " s); checkpoints " + checkpoints + ".",
          "Time scale " + FormatSetting(options.time_scale) +
              " (inter-arrival times divided by it, durations kept); seed " + std::to_string(options.seed) +
              "; gang planner node policy " + options.policy + ".",
          options.usage_half_life_seconds > 0
              ? "Time-based fair share on: each queue's GPU usage over the last " +
                    FormatSetting(options.usage_window_seconds) + " s, decayed with a half-life of " +
                    FormatSetting(options.usage_half_life_seconds) +
                    " s, counts beside the GPUs it holds in admission order and reclaim."
              : std::string("Time-based fair share off (only the GPUs a queue holds now count)."),
          options.predict_runtimes
              ? "Runtime prediction on: backfill onto reserved nodes on the " + FormatSetting(options.backfill_quantile) +
                    " quantile of the runtimes of ended jobs of the same queue and GPU count (else wider keys; at least " +
                    std::to_string(options.predict_min_samples) + " jobs, the latest " +
                    std::to_string(options.predict_window) + " each); reservations placed by " +
                    (options.predicted_ends ? "predicted ends." : "elapsed times (as long again as a job ran).")
              : std::string("Runtime prediction off (no backfill onto reserved nodes: the trace declares no runtimes)."),
          options.consolidate
              ? "Consolidation on: one-pod jobs of at most " + FormatSetting(options.consolidate_max_gpus) +
                    " GPUs that would lose at most " + FormatSetting(options.consolidate_max_lost_gpu_hours) +
                    " GPU-hours move into free GPUs elsewhere (at most " +
                    std::to_string(engine::ConsolidationConfig{}.max_moves_per_round) +
                    " a round) so that a waiting job whose queue's"
                    " fair share has room for it gets whole nodes."
              : std::string("Consolidation off.")};
}

void CreateOutputDirectory(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw std::runtime_error("cannot create output directory " + dir + ": " + ec.message());
}

void WriteTextFile(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  if (!out) throw std::runtime_error("cannot write " + path);
  out << text;
}

}  // namespace gangplank::simulator

#include "simulator/time_replay/run_time_replay.h"

#include <cstdio>
#include <memory>
#include <stdexcept>

#include "engine/policies/registry.h"
#include "simulator/progress_bar.h"
#include "simulator/time_replay/gang_schedulers.h"
#include "simulator/time_replay/job_trace.h"
#include "simulator/time_replay/kube_like_scheduler.h"
#include "simulator/time_replay/prediction_accuracy.h"
#include "simulator/time_replay/replay_cluster.h"
#include "simulator/time_replay/replay_engine.h"
#include "simulator/time_replay/replay_metrics.h"
#include "simulator/time_replay/replay_report.h"
#include "simulator/time_replay/replay_setup.h"

namespace gangplank::simulator {
namespace {

std::unique_ptr<ReplayScheduler> MakeScheduler(const std::string& name, const engine::Cluster& cluster,
                                               const Workload& workload, const TimeReplayOptions& options,
                                               const std::vector<engine::PodRequest>& pods) {
  if (name == "kube-like") return std::make_unique<KubeLikeScheduler>(cluster, workload, options.seed);
  auto policy = engine::policies::MakePolicy(options.policy, pods);
  if (name == "gangplank" || name == "gangplank-no-predict" || name == "gangplank-no-reserve") {
    TimeReplayOptions variant = options;
    if (name == "gangplank-no-predict") variant.predict_runtimes = false;
    if (name == "gangplank-no-reserve") variant.reserve_after_seconds = -1;
    auto scheduler = std::make_unique<GangplankScheduler>(cluster, workload, options.seed, std::move(policy));
    ConfigureGangplank(*scheduler, variant);
    scheduler->set_name(name);
    return scheduler;
  }
  if (name == "fifo-gang") {
    return std::make_unique<FifoGangScheduler>(cluster, workload, options.seed, std::move(policy));
  }
  throw std::invalid_argument("unknown scheduler '" + name +
                              "' (gangplank, kube-like, fifo-gang, gangplank-no-predict, gangplank-no-reserve)");
}

// Jain's index over weeks and the wait of the burst of a queue idle before it (replay_metrics.h).
void LogFairnessOverTime(const TimeReplayOutput& out, std::ostream& log) {
  if (out.figures.empty()) return;
  const IdleBurst& burst = out.figures.front().idle_burst;
  if (burst.queue >= 0) {
    log << "idle burst: queue " << out.workload.queues[burst.queue].name << ", " << burst.jobs.size() << " jobs ("
        << burst.gpus << " GPUs) from day " << FormatFixed(burst.start / 86400, 2)
        << " after a day with nothing of it running or arriving\n";
  }
  for (const SchedulerFigures& f : out.figures) {
    log << f.scheduler << ": Jain over weeks " << FormatFixed(f.jain_week_mean, 3) << ", idle burst mean wait "
        << FormatFixed(f.idle_burst_wait / 3600, 2) << " h\n";
  }
}

// Consolidation's moves, per scheduler that made any.
void LogMoves(const TimeReplayOutput& out, std::ostream& log) {
  for (const ReplayResult& r : out.results) {
    if (r.moves == 0) continue;
    log << r.scheduler << ": " << r.moves << " jobs moved by consolidation ("
        << FormatFixed(r.move_lost_gpu_seconds / 3600, 1) << " GPU-h of work lost)\n";
  }
}

// Backfill on predicted runtimes and how good the predictions were, per scheduler that predicted.
void LogPredictions(const TimeReplayOutput& out, std::ostream& log) {
  char line[256];
  for (const ReplayResult& r : out.results) {
    if (!r.prediction.enabled) continue;
    log << r.scheduler << ": " << r.prediction.backfilled << " gangs backfilled onto reserved nodes on the "
        << FormatSetting(r.prediction.quantile) << " quantile of their predicted runtime, " << r.prediction.overruns
        << " ended for overstaying (" << FormatFixed(r.prediction.overrun_lost_gpu_seconds / 3600, 1)
        << " GPU-h of work lost)\n";
    std::snprintf(line, sizeof(line), "%-10s %6s %6s %9s %9s %9s   (runtime predicted at arrival, by job GPUs)\n",
                  "gpus", "ended", "pred", "within_q", "MedAE_h", "med_ratio");
    log << line;
    for (const PredictionAccuracy& a : AccuracyBySize(out.workload, r)) {
      std::snprintf(line, sizeof(line), "%-10s %6d %6d %8.1f%% %9.2f %9.2f\n", a.label.c_str(), a.ended, a.predicted,
                    100 * a.within_quantile, a.median_abs_error_h, a.median_ratio);
      log << line;
    }
  }
}

}  // namespace

TimeReplayOutput RunTimeReplayInMemory(const JobTrace& trace, const TimeReplayOptions& options) {
  TimeReplayOutput out;
  PreparedReplay prepared = PrepareReplay(trace, options);
  out.workload = std::move(prepared.workload);
  out.notes = std::move(prepared.notes);
  const engine::Cluster& cluster = prepared.cluster;
  const std::vector<engine::PodRequest>& pods = prepared.pods;
  ReplayConfig config;
  config.sample_seconds = options.sample_seconds;
  for (const std::string& name : options.schedulers) {
    std::unique_ptr<ReplayScheduler> scheduler = MakeScheduler(name, cluster, out.workload, options, pods);
    ProgressBar bar("time replay, " + name, options.progress);
    config.on_progress = [&bar](size_t arrived, size_t total) {
      bar.Update(static_cast<int>(arrived), static_cast<int>(total));
    };
    out.results.push_back(RunReplay(out.workload, *scheduler, config));
    out.figures.push_back(ComputeFigures(out.workload, out.results.back()));
  }
  return out;
}

int RunTimeReplay(const TimeReplayOptions& options, std::ostream& log) {
  const JobTrace trace = LoadPhillyTrace(options.jobs_path, options.vcs_path, options.max_jobs);
  const TimeReplayOutput out = RunTimeReplayInMemory(trace, options);

  std::vector<std::string> setup = DescribeReplaySetup(options, out.workload);
  const std::vector<std::string> more = {
      "Why this size: the trace's 352 VC nodes (2816 GPUs) would sit about 17% busy, and no queue would ever wait. "
      "The default 80 nodes (640 GPUs) sits below the trace's demand in its busy weeks (400-950 GPUs a day), so queues contend, and every job still fits.",
      "Schedulers: gangplank = all-or-nothing gangs, topology-aware planner, weighted max-min fair share across "
      "queues (admission order: queue furthest below its fair share, then priority, then arrival), smaller gangs may "
      "start past a blocked one (with --reserve-after, a gang of a queue below its fair share that has waited that long reserves nodes to drain; with --reclaim, whole gangs of queues above their fair share are evicted for it); kube-like = pods placed one by one as they come with least-allocated spreading, a "
      "job runs once all its pods are placed; fifo-gang = all-or-nothing, strict arrival order, no fair share."};
  setup.insert(setup.end(), more.begin(), more.end());
  for (const std::string& note : out.notes) setup.push_back("Note: " + note);

  CreateOutputDirectory(options.out_dir);
  WriteMetrics(options.out_dir, out.workload, out.results, out.figures, out.notes);
  WriteTextFile(options.out_dir + "/report.html", RenderTimeReplayReport(out.workload, out.results, out.figures, setup));

  for (const std::string& line : setup) log << line << "\n";
  char line[512];
  std::snprintf(line, sizeof(line), "%-10s %8s %7s %9s %9s %9s %9s %9s %9s %6s %6s %12s %6s %6s\n", "scheduler",
                "started", "never", "JCTmean_h", "JCTp50_h", "JCTp99_h", "dly_mean", "dly_p50", "dly_p99", "util",
                "occup", "held_GPU_h", "Jain", "wall_s");
  log << line;
  for (const SchedulerFigures& f : out.figures) {
    std::snprintf(line, sizeof(line),
                  "%-10s %8d %7d %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %5.1f%% %5.1f%% %12.1f %6.3f %6.2f\n",
                  f.scheduler.c_str(), f.started, f.never_started, f.jct.mean / 3600, f.jct.p50 / 3600, f.jct.p99 / 3600,
                  f.delay.mean / 3600, f.delay.p50 / 3600, f.delay.p99 / 3600, 100 * f.utilisation, 100 * f.occupancy,
                  f.held_incomplete_gpu_seconds / 3600, f.jain_mean, f.wall_seconds);
    log << line;
    if (f.stuck_jobs_holding_gpus > 0) {
      log << "  " << f.scheduler << ": deadlock at the end: " << f.stuck_jobs_holding_gpus
          << " jobs never started while holding " << f.stuck_held_gpus << " GPUs\n";
    }
  }
  std::snprintf(line, sizeof(line), "%-10s %8s %8s %11s", "scheduler", "preempt", "pre_jobs", "lost_GPU_h");
  log << line;
  for (const SizeBucket& b : SizeBuckets()) {
    std::snprintf(line, sizeof(line), " %9s", ("dly_" + b.label).c_str());
    log << line;
  }
  log << "   (mean queueing delay in hours by job GPUs)\n";
  for (const SchedulerFigures& f : out.figures) {
    std::snprintf(line, sizeof(line), "%-10s %8d %8d %11.1f", f.scheduler.c_str(), f.preemptions, f.preempted_jobs,
                  f.lost_gpu_seconds / 3600);
    log << line;
    for (const SizeBucket& b : f.by_size) {
      std::snprintf(line, sizeof(line), " %9.2f", b.delay.count > 0 ? b.delay.mean / 3600 : 0.0);
      log << line;
    }
    log << "\n";
  }
  LogFairnessOverTime(out, log);
  LogMoves(out, log);
  LogPredictions(out, log);
  log << "wrote " << options.out_dir << "/report.html, summary.csv, summary.json, jobs_*.csv, timeseries_*.csv\n";
  return 0;
}

}  // namespace gangplank::simulator

#include "simulator/time_replay/replay_flags.h"

#include "engine/policies/registry.h"

namespace gangplank::simulator {

void AddReplayFlags(CLI::App& cmd, TimeReplayOptions& options) {
  cmd.add_option("--jobs", options.jobs_path, "Job trace CSV: timestamp,duration,num_gpus,gpu_time,cluster")
      ->envname("GANGPLANK_SIM_JOBS")
      ->capture_default_str();
  cmd.add_option("--vcs", options.vcs_path, "Virtual-cluster CSV: vc,node num (node count = guaranteed share)")
      ->envname("GANGPLANK_SIM_VCS")
      ->capture_default_str();
  cmd.add_option("--out", options.out_dir, "Output directory for metrics and report.html (created)")
      ->envname("GANGPLANK_SIM_OUT")
      ->capture_default_str();
  cmd.add_option("--nodes", options.nodes,
                 "Nodes in the simulated cluster. The trace's 352 VC nodes would sit "
                 "~17% busy; the default\n"
                 "is sized so queues contend. VC guarantees are scaled to this size.")
      ->envname("GANGPLANK_SIM_NODES")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  cmd.add_option("--gpus-per-node", options.gpus_per_node, "GPUs per node (gang pods take a whole node)")
      ->envname("GANGPLANK_SIM_GPUS_PER_NODE")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  cmd.add_option("--nodes-per-rack", options.nodes_per_rack, "Nodes per rack (narrowest topology level above host)")
      ->envname("GANGPLANK_SIM_NODES_PER_RACK")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  cmd.add_option("--racks-per-row", options.racks_per_row, "Racks per row")
      ->envname("GANGPLANK_SIM_RACKS_PER_ROW")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  cmd.add_option("--rows-per-zone", options.rows_per_zone, "Rows per zone (widest level)")
      ->envname("GANGPLANK_SIM_ROWS_PER_ZONE")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  cmd.add_option("--time-scale", options.time_scale,
                 "Divide inter-arrival times by this factor (durations "
                 "unchanged) to raise the load")
      ->envname("GANGPLANK_SIM_TIME_SCALE")
      ->check(CLI::Range(0.001, 1000.0))
      ->capture_default_str();
  cmd.add_option("--max-jobs", options.max_jobs, "Replay only the first N jobs of the trace (0: all)")
      ->envname("GANGPLANK_SIM_MAX_JOBS")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd.add_option("--sample-seconds", options.sample_seconds,
                 "Simulated seconds between samples of utilisation and per-queue share")
      ->envname("GANGPLANK_SIM_SAMPLE_SECONDS")
      ->check(CLI::Range(1.0, 1e9))
      ->capture_default_str();
  cmd.add_option("--reserve-after", options.reserve_after_seconds,
                 "gangplank: seconds a gang may wait before it reserves nodes "
                 "to drain for itself\n"
                 "(so a stream of small jobs cannot starve it); negative "
                 "disables reservations")
      ->envname("GANGPLANK_SIM_RESERVE_AFTER")
      ->capture_default_str();
  cmd.add_option("--reserve-fraction", options.reserve_fraction,
                 "gangplank: largest fraction of the nodes that reservations "
                 "may hold at once")
      ->envname("GANGPLANK_SIM_RESERVE_FRACTION")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  cmd.add_option("--reserve-choice", options.reserve_choice,
                 "gangplank: nodes a reservation drains: soonest (the domain expected free first, from the\n"
                 "running jobs' elapsed time; re-judged every round) or most-free (most free GPUs now)")
      ->envname("GANGPLANK_SIM_RESERVE_CHOICE")
      ->check(CLI::IsMember({"soonest", "most-free"}))
      ->capture_default_str();
  cmd.add_option("--reserve-share", options.reserve_share,
                 "gangplank: queues that may reserve: earmarked (running plus reserved GPUs below the fair\n"
                 "share) or below-share (below the fair share, one gang per queue and pod shape)")
      ->envname("GANGPLANK_SIM_RESERVE_SHARE")
      ->check(CLI::IsMember({"earmarked", "below-share"}))
      ->capture_default_str();
  cmd.add_option("--reclaim", options.reclaim,
                 "gangplank: evict whole gangs of queues above their fair "
                 "share when a gang of a queue below\n"
                 "its share cannot be placed (true/false)")
      ->envname("GANGPLANK_SIM_RECLAIM")
      ->capture_default_str();
  cmd.add_option("--reclaim-after", options.reclaim_after_seconds,
                 "gangplank: seconds a gang must have waited before it may reclaim")
      ->envname("GANGPLANK_SIM_RECLAIM_AFTER")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd.add_option("--no-backfill-after", options.no_backfill_after_seconds,
                 "gangplank: a gang that has waited this many seconds stops "
                 "later gangs of its own queue from\n"
                 "starting past it, so its queue falls below its fair share "
                 "and may reclaim; negative: never")
      ->envname("GANGPLANK_SIM_NO_BACKFILL_AFTER")
      ->capture_default_str();
  cmd.add_option("--reclaim-min-runtime", options.reclaim_min_runtime_seconds,
                 "gangplank: seconds a gang must have run before it may be evicted")
      ->envname("GANGPLANK_SIM_RECLAIM_MIN_RUNTIME")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd.add_option("--reclaim-max-lost-gpu-hours", options.reclaim_max_lost_gpu_hours,
                 "gangplank: never evict a gang that would lose more GPU-hours "
                 "of work than this")
      ->envname("GANGPLANK_SIM_RECLAIM_MAX_LOST_GPU_HOURS")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd.add_option("--reclaim-max-per-round", options.reclaim_max_per_round,
                 "gangplank: most gangs evicted in one admission round")
      ->envname("GANGPLANK_SIM_RECLAIM_MAX_PER_ROUND")
      ->check(CLI::Range(0, 1000000))
      ->capture_default_str();
  cmd.add_option("--reclaim-max-per-window", options.reclaim_max_per_window,
                 "gangplank: most gangs evicted per --reclaim-window")
      ->envname("GANGPLANK_SIM_RECLAIM_MAX_PER_WINDOW")
      ->check(CLI::Range(0, 1000000))
      ->capture_default_str();
  cmd.add_option("--reclaim-window", options.reclaim_window_seconds,
                 "gangplank: seconds of the sliding window of the eviction budget")
      ->envname("GANGPLANK_SIM_RECLAIM_WINDOW")
      ->check(CLI::Range(1.0, 1e9))
      ->capture_default_str();
  cmd.add_option("--consolidate", options.consolidate,
                 "gangplank: move small one-pod gangs (evicted, requeued, restarting at once on free GPUs\n"
                 "elsewhere) so that a waiting gang whose queue's fair share has room for it gets whole\n"
                 "nodes (true/false)")
      ->envname("GANGPLANK_SIM_CONSOLIDATE")
      ->capture_default_str();
  cmd.add_option("--consolidate-max-gpus", options.consolidate_max_gpus,
                 "gangplank: largest one-pod gang (GPUs) consolidation moves")
      ->envname("GANGPLANK_SIM_CONSOLIDATE_MAX_GPUS")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd.add_option("--consolidate-max-lost-gpu-hours", options.consolidate_max_lost_gpu_hours,
                 "gangplank: never move a gang that would lose more GPU-hours of work than this")
      ->envname("GANGPLANK_SIM_CONSOLIDATE_MAX_LOST_GPU_HOURS")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd.add_option("--usage-half-life", options.usage_half_life_seconds,
                 "gangplank: time-based fair share: half-life in seconds of each queue's past GPU usage, which\n"
                 "then counts beside the GPUs it holds in admission order and reclaim (0: off)")
      ->envname("GANGPLANK_SIM_USAGE_HALF_LIFE")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd.add_option("--usage-window", options.usage_window_seconds,
                 "gangplank: seconds of past usage remembered (168 buckets); older usage is forgotten")
      ->envname("GANGPLANK_SIM_USAGE_WINDOW")
      ->check(CLI::Range(168.0, 1e9))
      ->capture_default_str();
  cmd.add_option("--predict-runtimes", options.predict_runtimes,
                 "gangplank: predict each job's runtime from the jobs like it that have ended (queue and GPU\n"
                 "count), backfill reserved nodes on it and place reservations by running jobs' predicted ends")
      ->envname("GANGPLANK_SIM_PREDICT_RUNTIMES")
      ->capture_default_str();
  cmd.add_option("--backfill-quantile", options.backfill_quantile,
                 "gangplank: the quantile of a job's predicted runtime that must end before a reserved gang is\n"
                 "expected for the job to start on its nodes (higher: fewer backfills, fewer ended for overstaying)")
      ->envname("GANGPLANK_SIM_BACKFILL_QUANTILE")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  cmd.add_option("--predicted-ends", options.predicted_ends,
                 "gangplank, with --predict-runtimes: place reservations by running jobs' predicted ends\n"
                 "(false: by as long again as they ran, only backfill uses predictions)")
      ->envname("GANGPLANK_SIM_PREDICTED_ENDS")
      ->capture_default_str();
  cmd.add_option("--predict-min-samples", options.predict_min_samples,
                 "gangplank: ended jobs a key needs before it predicts (fewer: the next, wider key answers)")
      ->envname("GANGPLANK_SIM_PREDICT_MIN_SAMPLES")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  cmd.add_option("--predict-window", options.predict_window,
                 "gangplank: latest runtimes kept per key")
      ->envname("GANGPLANK_SIM_PREDICT_WINDOW")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  cmd.add_option("--checkpoint-interval", options.checkpoint_seconds,
                 "Checkpoint model: jobs save progress every this many seconds "
                 "of a run; an evicted job\n"
                 "loses the work since its last checkpoint (0: no checkpoints, "
                 "it starts over)")
      ->envname("GANGPLANK_SIM_CHECKPOINT_INTERVAL")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd.add_option("--seed", options.seed, "Seed for tie-breaking among equally scored nodes")
      ->envname("GANGPLANK_SIM_SEED")
      ->capture_default_str();
  cmd.add_option("--policy", options.policy,
                 "Node-scoring policy the gang planner uses inside its chosen "
                 "domain (gangplank, fifo-gang)")
      ->envname("GANGPLANK_SIM_POLICY")
      ->check(CLI::IsMember(engine::policies::PolicyNames()))
      ->capture_default_str();
  cmd.add_option("--progress", options.progress,
                 "Draw a progress bar on stderr (default: only when stderr is "
                 "a terminal)")
      ->envname("GANGPLANK_SIM_PROGRESS")
      ->capture_default_str();
}

}  // namespace gangplank::simulator

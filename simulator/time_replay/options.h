// Everything a time replay run can be told: input traces, cluster size and shape, time compression,
// which schedulers to compare and where to write the results. Filled by the `time` CLI command.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gangplank::simulator {

#ifdef GANGPLANK_DATA_DIR
inline constexpr const char* kTimeReplayDataDir = GANGPLANK_DATA_DIR;
#else
inline constexpr const char* kTimeReplayDataDir = "data";
#endif

struct TimeReplayOptions {
  std::string jobs_path = std::string(kTimeReplayDataDir) + "/philly/philly_jobs_sep_oct_2017.csv";
  std::string vcs_path = std::string(kTimeReplayDataDir) + "/philly/philly_vc.csv";
  std::string out_dir = "time-replay-out";

  // Synthetic cluster: `nodes` nodes of `gpus_per_node` GPUs, grouped zone > row > rack > host.
  int nodes = 80;
  int gpus_per_node = 8;
  int nodes_per_rack = 8;
  int racks_per_row = 4;
  int rows_per_zone = 2;

  // Arrival times are divided by this factor (durations are not), to raise the offered load.
  double time_scale = 1.0;
  // Only the first N jobs of the trace (0: all), for quick looks.
  std::int64_t max_jobs = 0;
  // Interval of the utilisation and per-queue share time series, in simulated seconds.
  double sample_seconds = 3600;
  std::uint64_t seed = 1;
  // gangplank: seconds a multi-pod gang waits before it reserves the nodes expected free soonest
  // (negative: never). 900 s: the knee of the sweep in README.md (mean JCT against the 25-32-GPU
  // gangs' wait).
  double reserve_after_seconds = 900;
  // gangplank: largest fraction of the nodes reservations may hold at once.
  double reserve_fraction = 0.25;
  // gangplank: which nodes a reservation drains, "soonest" (the domain expected free first, re-judged
  // every round) or "most-free" (the nodes with the most free GPUs now, kept); and which queues may
  // reserve, "earmarked" (running plus reserved GPUs below the fair share) or "below-share" (below the
  // fair share, one gang per queue and pod shape). See engine/admission/admission_input.h.
  std::string reserve_choice = "soonest";
  std::string reserve_share = "below-share";
  // gangplank: fair-share reclaim (evict whole gangs of queues above their fair share for a waiting gang
  // of a queue below its share; see engine/admission/admission_round.h), and its guardrails.
  bool reclaim = true;
  double reclaim_after_seconds = 3600;  // A gang reclaims only after waiting this long.
  // A gang that waited this long stops later gangs of its queue from backfilling past it (negative: never).
  double no_backfill_after_seconds = -1;
  double reclaim_min_runtime_seconds = 3600;
  double reclaim_max_lost_gpu_hours = 8;  // A gang that would lose more work is never evicted.
  int reclaim_max_per_round = 4;
  int reclaim_max_per_window = 16;
  double reclaim_window_seconds = 3600;
  // gangplank: consolidation (engine ConsolidationConfig): one-pod gangs of at most `consolidate_max_gpus`
  // that would lose at most `consolidate_max_lost_gpu_hours` move into holes elsewhere, so that a waiting
  // gang whose queue's fair share has room for it gets whole nodes.
  bool consolidate = false;
  double consolidate_max_gpus = 4;
  double consolidate_max_lost_gpu_hours = 2;
  // gangplank: time-based fair share (engine/fairshare/usage_ledger.h). Each queue's GPU usage is kept
  // in hourly buckets over `usage_window_seconds`; with a half-life above 0 its decayed average counts
  // beside the GPUs it holds when gangs are ordered and reclaim picks queues. 0: off, today's rule.
  double usage_half_life_seconds = 0;
  double usage_window_seconds = 7 * 24 * 3600.0;
  // gangplank: runtime prediction (engine/prediction/runtime_predictor.h). Each job's runtime is
  // predicted from the jobs that ended before it arrived (same queue and GPU count, else the queue,
  // else the size, else all, with at least `predict_min_samples`, the latest `predict_window` each): a
  // job may then start on reserved nodes if the `backfill_quantile` of its prediction ends before the
  // reserved gang is expected there (ended whole if it overstays), and reservations are placed by the
  // running jobs' predicted ends.
  bool predict_runtimes = false;
  double backfill_quantile = 0.9;
  int predict_min_samples = 5;
  int predict_window = 64;
  // With prediction on: reservations placed by running jobs' predicted ends (else as long again as
  // they ran), for telling the two uses of prediction apart.
  bool predicted_ends = true;
  // Checkpoint model of the jobs (the trace has none): progress is saved every this many seconds of a
  // run; an evicted job loses the rest. 0: no checkpoints, an evicted job starts over. Hourly by
  // default, a common setting for training jobs (the trace does not say).
  double checkpoint_seconds = 3600;
  // Node-scoring policy inside the planner's chosen domain (gangplank and fifo-gang), by registry name.
  std::string policy = "bestfit";
  // Any of gangplank, kube-like, fifo-gang; and for comparisons in one run gangplank-no-predict
  // (gangplank without runtime prediction) and gangplank-no-reserve (without reservations).
  std::vector<std::string> schedulers = {"gangplank", "kube-like", "fifo-gang"};
  bool progress = true;
};

}  // namespace gangplank::simulator

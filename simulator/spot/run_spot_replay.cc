#include "simulator/spot/run_spot_replay.h"

#include <memory>

#include "engine/policies/registry.h"
#include "simulator/progress_bar.h"
#include "simulator/spot/spot_report.h"

namespace gangplank::simulator {
namespace {

engine::SpotPolicy EnginePolicy(const std::string& name) {
  if (name == "checkpoint-then-requeue") return engine::SpotPolicy::kCheckpointThenEvict;
  if (name == "evict-on-notice") return engine::SpotPolicy::kEvictOnNotice;
  return engine::SpotPolicy::kIgnore;
}

std::vector<std::string> DescribeSpotSetup(const SpotReplayOutput& out, const SpotReplayOptions& o) {
  std::string reclaims;
  for (const SpotSeedRun& run : out.runs) {
    reclaims += (reclaims.empty() ? "" : ", ") + std::to_string(run.draw.preemptions.size()) + " (seed " +
                std::to_string(run.seed) + ")";
  }
  const PreemptionModel& m = out.runs.front().draw.model;
  return {
      "Spot: " + std::to_string(out.runs.front().draw.spot_nodes.size()) + " of " + std::to_string(m.nodes) +
          " nodes (fraction " + FormatSetting(o.spot_fraction) + "), each reclaimed at " +
          FormatSetting(o.interruptions_per_node_month) +
          " interruptions per node per 30 days (Poisson) over the arrival window of " +
          FormatFixed(m.horizon / 86400, 1) + " days. Spot seeds " + o.spot_seeds +
          ": each picks the spot nodes and draws the reclaims, replayed under every policy; reclaims " + reclaims +
          ". Figures are means (± sample sd) over the seeds.",
      "Notice " + FormatSetting(o.notice_seconds) + " s before the node goes; a replacement node is up " +
          FormatSetting(o.replacement_seconds) +
          " s after it went. A node under notice is cordoned under every policy (the cloud's termination handler "
          "taints it).",
      "checkpoint-then-requeue: the engine asks every gang on a node under notice to checkpoint by the earlier of " +
          FormatSetting(o.checkpoint_grace_seconds) + " s after the notice and " +
          FormatSetting(o.eviction_margin_seconds) + " s before the node goes; jobs acknowledge " + FormatSetting(o.checkpoint_write_seconds) +
          " s after they are asked (a late one is evicted at the deadline and keeps only its periodic checkpoint). "
          "evict-on-notice: evicted whole at once. ignore: the node goes with its pods; the rest of each gang "
          "holds its GPUs for " +
          FormatSetting(o.failure_detection_seconds) +
          " s until the job is noticed failed. Evicted and failed gangs are requeued whole at the head of their "
          "queue."};
}

}  // namespace

SpotSettings SpotSettingsFor(const std::string& policy, const SpotReplayOptions& options) {
  SpotSettings s;
  s.name = policy;
  s.engine.policy = EnginePolicy(policy);
  s.engine.checkpoint_grace_seconds = options.checkpoint_grace_seconds;
  s.engine.eviction_margin_seconds = options.eviction_margin_seconds;
  s.checkpoint_write_seconds = options.checkpoint_write_seconds;
  s.failure_detection_seconds = options.failure_detection_seconds;
  return s;
}

SpotPolicyRun RunSpotPolicy(const PreparedReplay& prepared, const std::vector<NodePreemption>& preemptions,
                            const std::string& policy, const SpotReplayOptions& options) {
  SpotGangplankScheduler scheduler(prepared.cluster, prepared.workload, options.replay.seed,
                                   engine::policies::MakePolicy(options.replay.policy, prepared.pods), preemptions,
                                   SpotSettingsFor(policy, options));
  ConfigureGangplank(scheduler, options.replay);
  ProgressBar bar("spot replay, " + policy, options.replay.progress);
  ReplayConfig config;
  config.sample_seconds = options.replay.sample_seconds;
  config.on_progress = [&bar](size_t arrived, size_t total) {
    bar.Update(static_cast<int>(arrived), static_cast<int>(total));
  };
  SpotPolicyRun run{RunReplay(prepared.workload, scheduler, config), {}};
  run.counters = scheduler.counters();
  return run;
}

PreemptionModel SpotModelFor(const SpotReplayOptions& options, const Workload& workload, std::uint64_t seed) {
  PreemptionModel m;
  m.nodes = options.replay.nodes;
  m.spot_fraction = options.spot_fraction;
  m.interruptions_per_node_month = options.interruptions_per_node_month;
  m.notice_seconds = options.notice_seconds;
  m.replacement_seconds = options.replacement_seconds;
  // The window every replay metric is measured over.
  m.horizon = workload.jobs.empty() ? 0 : workload.jobs.back().arrival;
  m.seed = seed;
  return m;
}

namespace {

// The spot study as the harness's plug-in. Replays run side by side, so each draws no bar of its own.
class SpotStudy {
 public:
  using Draw = SpotDraw;
  using Figures = SpotFigures;

  explicit SpotStudy(const SpotReplayOptions& options) : options_(options) { options_.replay.progress = false; }

  SpotDraw DrawFor(std::uint64_t seed, const Workload& workload) const {
    SpotDraw draw{SpotModelFor(options_, workload, seed), {}, {}};
    draw.spot_nodes = PickSpotNodes(draw.model);
    draw.preemptions = DrawPreemptions(draw.model);
    return draw;
  }
  std::pair<ReplayResult, SpotFigures> Replay(const PreparedReplay& prepared, const SpotDraw& draw,
                                              const std::string& policy) const {
    SpotPolicyRun run = RunSpotPolicy(prepared, draw.preemptions, policy, options_);
    SpotFigures figures = ComputeSpotFigures(prepared.workload, run.result, run.counters);
    return {std::move(run.result), std::move(figures)};
  }

 private:
  SpotReplayOptions options_;
};

}  // namespace

SpotReplayOutput RunSpotReplayInMemory(const JobTrace& trace, const SpotReplayOptions& options) {
  ValidateSpotOptions(options);
  const SeededReplayPlan plan{.seeds = SpotSeeds(options),
                              .policies = options.policies,
                              .threads = options.threads,
                              .label = "spot replays",
                              .progress = options.replay.progress};
  SpotReplayOutput out{RunSeededReplays(PrepareReplay(trace, options.replay), plan, SpotStudy(options)), {}};
  out.summary = SummarizeSpotPolicies(out.FiguresPerSeed());
  return out;
}

int RunSpotReplay(const SpotReplayOptions& options, std::ostream& log) {
  ValidateSpotOptions(options);
  const TimeReplayOptions& replay = options.replay;
  const JobTrace trace = LoadPhillyTrace(replay.jobs_path, replay.vcs_path, replay.max_jobs);
  const SpotReplayOutput out = RunSpotReplayInMemory(trace, options);

  const std::vector<std::string> setup =
      StudySetupLines(replay, out.workload, DescribeSpotSetup(out, options), out.notes);

  CreateOutputDirectory(replay.out_dir);
  WriteSpotSummary(replay.out_dir, out.Seeds(), out.FiguresPerSeed(), out.summary, setup);
  WriteTextFile(replay.out_dir + "/report.html", RenderSpotReport(out, setup));

  for (const std::string& line : setup) log << line << "\n";
  log << FormatSpotTable(out.summary);
  log << "wrote " << replay.out_dir << "/report.html, summary.csv, runs.csv, summary.json\n";
  return 0;
}

}  // namespace gangplank::simulator

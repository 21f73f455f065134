#include "simulator/spot/run_spot_replay.h"

#include <atomic>
#include <memory>

#include "engine/policies/registry.h"
#include "simulator/parallel_tasks.h"
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
    reclaims += (reclaims.empty() ? "" : ", ") + std::to_string(run.preemptions.size()) + " (seed " +
                std::to_string(run.seed) + ")";
  }
  const PreemptionModel& m = out.runs.front().model;
  return {
      "Spot: " + std::to_string(out.runs.front().spot_nodes.size()) + " of " + std::to_string(m.nodes) +
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

SpotReplayOutput RunSpotReplayInMemory(const JobTrace& trace, const SpotReplayOptions& options) {
  ValidateSpotOptions(options);
  SpotReplayOutput out;
  const PreparedReplay prepared = PrepareReplay(trace, options.replay);
  out.workload = prepared.workload;
  out.notes = prepared.notes;
  for (std::uint64_t seed : SpotSeeds(options)) {
    SpotSeedRun run;
    run.seed = seed;
    run.model = SpotModelFor(options, out.workload, seed);
    run.spot_nodes = PickSpotNodes(run.model);
    run.preemptions = DrawPreemptions(run.model);
    run.results.resize(options.policies.size());
    run.figures.resize(options.policies.size());
    out.runs.push_back(std::move(run));
  }
  // Every (seed, policy) replay is independent and writes only its own slots.
  const size_t policies = options.policies.size();
  SpotReplayOptions quiet = options;
  quiet.replay.progress = false;  // Replays run side by side: one bar for all of them instead.
  ProgressBar bar("spot replays", options.replay.progress);
  std::atomic<int> done{0};
  RunTasks(out.runs.size() * policies, options.threads, [&](size_t task) {
    SpotSeedRun& run = out.runs[task / policies];
    const size_t p = task % policies;
    SpotPolicyRun replay = RunSpotPolicy(prepared, run.preemptions, options.policies[p], quiet);
    run.figures[p] = ComputeSpotFigures(out.workload, replay.result, replay.counters);
    run.results[p] = std::move(replay.result);
    bar.Update(++done, static_cast<int>(out.runs.size() * policies));
  });
  std::vector<std::vector<SpotFigures>> per_seed;
  for (const SpotSeedRun& run : out.runs) per_seed.push_back(run.figures);
  out.summary = SummarizeSpotPolicies(per_seed);
  return out;
}

int RunSpotReplay(const SpotReplayOptions& options, std::ostream& log) {
  ValidateSpotOptions(options);
  const TimeReplayOptions& replay = options.replay;
  const JobTrace trace = LoadPhillyTrace(replay.jobs_path, replay.vcs_path, replay.max_jobs);
  const SpotReplayOutput out = RunSpotReplayInMemory(trace, options);

  std::vector<std::string> setup = DescribeReplaySetup(replay, out.workload);
  for (std::string& line : DescribeSpotSetup(out, options)) setup.push_back(std::move(line));
  for (const std::string& note : out.notes) setup.push_back("Note: " + note);

  CreateOutputDirectory(replay.out_dir);
  std::vector<std::uint64_t> seeds;
  std::vector<std::vector<SpotFigures>> per_seed;
  for (const SpotSeedRun& run : out.runs) {
    seeds.push_back(run.seed);
    per_seed.push_back(run.figures);
  }
  WriteSpotSummary(replay.out_dir, seeds, per_seed, out.summary, setup);
  WriteTextFile(replay.out_dir + "/report.html", RenderSpotReport(out, setup));

  for (const std::string& line : setup) log << line << "\n";
  log << FormatSpotTable(out.summary);
  log << "wrote " << replay.out_dir << "/report.html, summary.csv, runs.csv, summary.json\n";
  return 0;
}

}  // namespace gangplank::simulator

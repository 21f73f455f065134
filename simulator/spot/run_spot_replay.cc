#include "simulator/spot/run_spot_replay.h"

#include <cstdio>
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

PreemptionModel ModelFor(const SpotReplayOptions& o, const Workload& workload) {
  PreemptionModel m;
  m.nodes = o.replay.nodes;
  m.spot_fraction = o.spot_fraction;
  m.interruptions_per_node_month = o.interruptions_per_node_month;
  m.notice_seconds = o.notice_seconds;
  m.replacement_seconds = o.replacement_seconds;
  // Reclaims come while jobs arrive: the window every replay metric is measured
  // over.
  m.horizon = workload.jobs.empty() ? 0 : workload.jobs.back().arrival;
  m.seed = o.spot_seed;
  return m;
}

std::vector<std::string> DescribeSpotSetup(const SpotReplayOutput& out, const SpotReplayOptions& o) {
  const PreemptionModel& m = out.model;
  return {"Spot: " + std::to_string(out.spot_nodes.size()) + " of " + std::to_string(m.nodes) + " nodes (fraction " +
              FormatSetting(o.spot_fraction) + ", spot seed " + std::to_string(o.spot_seed) + "), each reclaimed at " +
              FormatSetting(o.interruptions_per_node_month) +
              " interruptions per node per 30 days (Poisson) over the arrival "
              "window of " +
              FormatSetting(m.horizon / 86400) + " days: " + std::to_string(out.preemptions.size()) +
              " reclaims, the same for every policy.",
          "Notice " + FormatSetting(o.notice_seconds) + " s before the node goes; a replacement node is up " +
              FormatSetting(o.replacement_seconds) +
              " s after it went. A node under notice is cordoned under every "
              "policy (the cloud's termination handler taints it).",
          "checkpoint-then-requeue: the engine asks every gang on a node under "
          "notice to checkpoint by the earlier of " +
              FormatSetting(o.checkpoint_grace_seconds) + " s and " + FormatSetting(o.eviction_margin_seconds) +
              " s before the node goes; jobs acknowledge " + FormatSetting(o.checkpoint_write_seconds) +
              " s after they are asked (a late one is evicted at the deadline "
              "and keeps only its periodic checkpoint). "
              "evict-on-notice: evicted whole at once. ignore: the node goes "
              "with its pods; the rest of each gang "
              "holds its GPUs for " +
              FormatSetting(o.failure_detection_seconds) +
              " s until the job is noticed failed. Evicted and failed gangs "
              "are requeued whole at the head of their queue."};
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

SpotReplayOutput RunSpotReplayInMemory(const JobTrace& trace, const SpotReplayOptions& options) {
  ValidateSpotOptions(options);
  SpotReplayOutput out;
  const PreparedReplay prepared = PrepareReplay(trace, options.replay);
  out.workload = prepared.workload;
  out.notes = prepared.notes;
  out.model = ModelFor(options, out.workload);
  out.spot_nodes = PickSpotNodes(out.model);
  out.preemptions = DrawPreemptions(out.model);
  for (const std::string& policy : options.policies) {
    SpotPolicyRun run = RunSpotPolicy(prepared, out.preemptions, policy, options);
    out.figures.push_back(ComputeSpotFigures(out.workload, run.result, run.counters));
    out.results.push_back(std::move(run.result));
  }
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
  const PreemptionSummary summary{static_cast<int>(out.spot_nodes.size()), out.model.nodes,
                                  static_cast<int>(out.preemptions.size()), out.model.horizon};
  WriteSpotSummary(replay.out_dir, out.figures, summary, setup);
  WriteTextFile(replay.out_dir + "/report.html", RenderSpotReport(out, setup));

  for (const std::string& line : setup) log << line << "\n";
  log << FormatSpotTable(out.figures);
  log << "wrote " << replay.out_dir << "/report.html, summary.csv, summary.json\n";
  return 0;
}

}  // namespace gangplank::simulator

#include "simulator/faults/run_faults_replay.h"

#include "engine/policies/registry.h"
#include "simulator/faults/fault_table.h"

namespace gangplank::simulator {
namespace {

FaultHandling HandlingOf(const std::string& name) {
  if (name == "restart-gang") return FaultHandling::kRestartGang;
  if (name == "per-pod-replacement") return FaultHandling::kPerPodReplacement;
  return FaultHandling::kNoHandling;
}

std::string FaultCountsBySeed(const FaultReplayOutput& out) {
  std::string text;
  for (const FaultSeedRun& run : out.runs) {
    int kinds[4] = {0, 0, 0, 0};
    for (const InjectedFault& f : run.draw.faults) ++kinds[static_cast<int>(f.kind)];
    text += (text.empty() ? "" : "; ") + std::to_string(run.draw.faults.size()) + " (seed " + std::to_string(run.seed) +
            ": " + std::to_string(kinds[0]) + " gpu, " + std::to_string(kinds[1]) + " host, " +
            std::to_string(kinds[2]) + " maintenance, " + std::to_string(kinds[3]) + " software)";
  }
  return text;
}

std::vector<std::string> DescribeFaultSetup(const FaultReplayOutput& out, const FaultReplayOptions& o) {
  const FaultModel& m = out.runs.front().draw.model;
  return {
      "Faults: each of the " + std::to_string(m.nodes) + " nodes fails at " + FormatSetting(o.faults_per_node_day) +
          " faults per node-day (Poisson, Llama 3's published rate is " + FormatFixed(Llama3FaultsPerNodeDay(), 5) +
          ") over the arrival window of " + FormatFixed(m.horizon / 86400, 1) +
          " days, of the kinds of Llama 3's root causes (gpu 268, host 56, maintenance 32, software 63 of 419). "
          "Fault seeds " + o.fault_seeds + ": " + FaultCountsBySeed(out) +
          ". Figures are means (± sample sd) over the seeds.",
      "A node hit by a gpu, host or maintenance fault is cordoned under every policy and back " +
          FormatSetting(o.repair_seconds) + " s later. Stopped jobs restart at the head of their queue from their "
          "last checkpoint (hourly unless --checkpoint-interval says otherwise).",
      "restart-gang: the engine's PlanGangRecovery (node grace " + FormatSetting(o.node_grace_seconds) +
          " s, checkpoint grace " + FormatSetting(o.checkpoint_grace_seconds) + " s, restart limit " +
          std::to_string(o.restart_limit) + ", backoff 30 s doubling to 600 s); jobs acknowledge a checkpoint " +
          FormatSetting(o.checkpoint_write_seconds) + " s after they are asked. per-pod-replacement: the dead pod is "
          "replaced alone (a lost host's after " + FormatSetting(o.failure_detection_seconds) +
          " s); the other pods of the job hang for the collective timeout of " +
          FormatSetting(o.collective_timeout_seconds) + " s, then the job restarts. no-handling: the job's pods stay "
          "as they are until its user resubmits it, " + FormatSetting(o.user_notice_seconds) + " s after the fault."};
}

std::string FaultsCsv(const FaultReplayOutput& out) {
  std::string csv = "seed,time_s,node,kind,gpu,repaired_s\n";
  for (const FaultSeedRun& run : out.runs) {
    for (const InjectedFault& f : run.draw.faults) {
      csv += std::to_string(run.seed) + "," + FormatFixed(f.at, 1) + "," + std::to_string(f.node) + "," +
             std::string(FaultKindName(f.kind)) + "," + std::to_string(f.gpu) + "," + FormatFixed(f.repaired_at, 1) +
             "\n";
    }
  }
  return csv;
}

}  // namespace

FaultModel FaultModelFor(const FaultReplayOptions& options, const Workload& workload, std::uint64_t seed) {
  FaultModel m;
  m.nodes = options.replay.nodes;
  m.gpus_per_node = options.replay.gpus_per_node;
  m.faults_per_node_day = options.faults_per_node_day;
  m.mix = Llama3FaultMix();
  m.repair_seconds = options.repair_seconds;
  m.horizon = workload.jobs.empty() ? 0 : workload.jobs.back().arrival;  // The window every metric is measured over.
  m.seed = seed;
  return m;
}

FaultSettings FaultSettingsFor(const std::string& policy, const FaultReplayOptions& o) {
  FaultSettings s;
  s.name = policy;
  s.handling = HandlingOf(policy);
  s.recovery.node_grace_seconds = o.node_grace_seconds;
  s.recovery.checkpoint_grace_seconds = o.checkpoint_grace_seconds;
  s.recovery.restart_limit = o.restart_limit;
  s.checkpoint_write_seconds = o.checkpoint_write_seconds;
  s.collective_timeout_seconds = o.collective_timeout_seconds;
  s.failure_detection_seconds = o.failure_detection_seconds;
  s.user_notice_seconds = o.user_notice_seconds;
  return s;
}

FaultPolicyRun RunFaultPolicy(const PreparedReplay& prepared, const std::vector<InjectedFault>& faults,
                              const std::string& policy, const FaultReplayOptions& options) {
  FaultsScheduler scheduler(prepared.cluster, prepared.workload, options.replay.seed,
                            engine::policies::MakePolicy(options.replay.policy, prepared.pods), faults,
                            FaultSettingsFor(policy, options));
  ConfigureGangplank(scheduler, options.replay);
  ReplayConfig config;
  config.sample_seconds = options.replay.sample_seconds;
  FaultPolicyRun run{RunReplay(prepared.workload, scheduler, config), {}};
  run.counters = scheduler.counters();
  return run;
}

std::vector<std::vector<PolicyRun>> ColumnsPerSeed(const std::vector<FaultSeedRun>& runs) {
  std::vector<std::vector<PolicyRun>> per_seed;
  for (const FaultSeedRun& run : runs) {
    per_seed.emplace_back();
    for (const FaultFigures& f : run.figures) per_seed.back().push_back(FaultColumns(f));
  }
  return per_seed;
}

namespace {

// The faults study as the harness's plug-in.
class FaultStudy {
 public:
  using Draw = FaultDraw;
  using Figures = FaultFigures;

  explicit FaultStudy(const FaultReplayOptions& options) : options_(options) {}

  FaultDraw DrawFor(std::uint64_t seed, const Workload& workload) const {
    FaultDraw draw{FaultModelFor(options_, workload, seed), {}};
    draw.faults = DrawFaults(draw.model);
    return draw;
  }
  std::pair<ReplayResult, FaultFigures> Replay(const PreparedReplay& prepared, const FaultDraw& draw,
                                               const std::string& policy) const {
    FaultPolicyRun run = RunFaultPolicy(prepared, draw.faults, policy, options_);
    FaultFigures figures = ComputeFaultFigures(prepared.workload, run.result, run.counters);
    return {std::move(run.result), std::move(figures)};
  }

 private:
  const FaultReplayOptions& options_;
};

}  // namespace

FaultReplayOutput RunFaultReplayInMemory(const JobTrace& trace, const FaultReplayOptions& options) {
  ValidateFaultOptions(options);
  const SeededReplayPlan plan{.seeds = FaultSeeds(options),
                              .policies = options.policies,
                              .threads = options.threads,
                              .label = "fault replays",
                              .progress = options.replay.progress};
  FaultReplayOutput out{RunSeededReplays(PrepareReplay(trace, options.replay), plan, FaultStudy(options)), {}};
  out.summary = SummarizePolicyRuns(ColumnsPerSeed(out.runs));
  return out;
}

int RunFaultReplay(const FaultReplayOptions& options, std::ostream& log) {
  ValidateFaultOptions(options);
  const TimeReplayOptions& replay = options.replay;
  const JobTrace trace = LoadPhillyTrace(replay.jobs_path, replay.vcs_path, replay.max_jobs);
  const FaultReplayOutput out = RunFaultReplayInMemory(trace, options);

  const std::vector<std::string> setup =
      StudySetupLines(replay, out.workload, DescribeFaultSetup(out, options), out.notes);

  CreateOutputDirectory(replay.out_dir);
  WritePolicySummary(replay.out_dir, out.Seeds(), ColumnsPerSeed(out.runs), out.summary, setup);
  WriteTextFile(replay.out_dir + "/faults.csv", FaultsCsv(out));

  for (const std::string& line : setup) log << line << "\n";
  log << FormatFaultTable(out.summary);
  log << "wrote " << replay.out_dir << "/summary.csv, runs.csv, summary.json, faults.csv\n";
  return 0;
}

}  // namespace gangplank::simulator

#include "simulator/what_if/what_if_run.h"

#include <cctype>

#include "simulator/csv_table.h"
#include "simulator/time_replay/replay_metrics.h"
#include "simulator/time_replay/replay_report.h"
#include "simulator/time_replay/replay_setup.h"

namespace gangplank::simulator {
namespace {

// The settings compared are gangplank's: the baselines (kube-like, fifo-gang) have none of them.
TimeReplayOptions GangplankOnly(TimeReplayOptions options) {
  options.schedulers = {"gangplank"};
  return options;
}

// A run's folder under --out: its label with anything but letters, digits and ._=- made '_'.
std::string RunFolder(const std::string& label) {
  std::string folder = label;
  for (char& c : folder) {
    const bool keep = std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '=' || c == '-';
    if (!keep) c = '_';
  }
  return folder;
}

void WriteRun(const std::string& dir, const TimeReplayOptions& options, const TimeReplayOutput& run) {
  std::vector<std::string> setup = DescribeReplaySetup(options, run.workload);
  for (const std::string& note : run.notes) setup.push_back("Note: " + note);
  CreateOutputDirectory(dir);
  WriteMetrics(dir, run.workload, run.results, run.figures, run.notes);
  WriteTextFile(dir + "/report.html", RenderTimeReplayReport(run.workload, run.results, run.figures, setup));
}

void WriteOutputs(const WhatIfOptions& options, const std::vector<WhatIfVariant>& variants, const WhatIfOutput& out,
                  std::ostream& log) {
  CreateOutputDirectory(options.out_dir);
  WriteTextFile(options.out_dir + "/what_if.csv", RenderWhatIfCsv(out.table));
  WriteRun(options.out_dir + "/baseline", options.baseline, out.runs[0]);
  for (size_t v = 0; v < variants.size(); ++v) {
    WriteRun(options.out_dir + "/" + RunFolder(variants[v].label), variants[v].options, out.runs[v + 1]);
  }
  if (!options.csv) {
    log << "wrote " << options.out_dir << "/what_if.csv and, per run, " << options.out_dir
        << "/<run>/report.html, summary.csv, summary.json, jobs_gangplank.csv, timeseries_gangplank.csv\n";
  }
}

// What was replayed: the baseline's trace, cluster and knobs (DescribeReplaySetup), and the trace's notes.
void LogSetup(const WhatIfOptions& options, const TimeReplayOutput& baseline, std::ostream& log) {
  log << "what-if: gangplank's admission round on one trace, once with the baseline settings and once per --set, "
         "each changing that one setting.\n";
  for (const std::string& line : DescribeReplaySetup(options.baseline, baseline.workload)) {
    log << "baseline: " << line << "\n";
  }
  for (const std::string& note : baseline.notes) log << "Note: " << note << "\n";
}

}  // namespace

std::vector<WhatIfVariant> ParseVariants(const TimeReplayOptions& baseline, const std::vector<std::string>& settings) {
  if (settings.empty()) {
    throw InputError("what-if needs at least one --set key=value. Valid keys: " + WhatIfSettingKeyList());
  }
  std::vector<WhatIfVariant> variants;
  for (const std::string& setting : settings) variants.push_back(ApplySetting(baseline, setting));
  return variants;
}

WhatIfOutput RunWhatIfInMemory(const JobTrace& trace, const TimeReplayOptions& baseline,
                               const std::vector<WhatIfVariant>& variants) {
  WhatIfOutput out;
  out.runs.push_back(RunTimeReplayInMemory(trace, GangplankOnly(baseline)));
  std::vector<std::string> labels;
  for (const WhatIfVariant& variant : variants) {
    out.runs.push_back(RunTimeReplayInMemory(trace, GangplankOnly(variant.options)));
    labels.push_back(variant.label);
  }
  std::vector<SchedulerFigures> figures;
  for (const TimeReplayOutput& run : out.runs) figures.push_back(run.figures.at(0));
  out.table = BuildWhatIfTable(labels, figures);
  return out;
}

int RunWhatIf(const WhatIfOptions& options, std::ostream& log) {
  const std::vector<WhatIfVariant> variants = ParseVariants(options.baseline, options.settings);
  const TimeReplayOptions& baseline = options.baseline;
  const JobTrace trace = LoadPhillyTrace(baseline.jobs_path, baseline.vcs_path, baseline.max_jobs);
  const WhatIfOutput out = RunWhatIfInMemory(trace, baseline, variants);
  if (options.csv) {
    log << RenderWhatIfCsv(out.table);
  } else {
    LogSetup(options, out.runs[0], log);
    log << RenderWhatIfText(out.table);
  }
  if (!options.out_dir.empty()) WriteOutputs(options, variants, out, log);
  return 0;
}

}  // namespace gangplank::simulator

#include "simulator/spot/spot_metrics.h"

#include <cmath>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "simulator/time_replay/replay_setup.h"

namespace gangplank::simulator {
namespace {

double Hours(double seconds) { return seconds / 3600; }

SpotPolicySummary::Column Spread(const std::string& name, const std::vector<double>& values) {
  SpotPolicySummary::Column c{name, 0, 0};
  if (values.empty()) return c;
  for (double v : values) c.mean += v;
  c.mean /= static_cast<double>(values.size());
  if (values.size() < 2) return c;
  double squares = 0;
  for (double v : values) squares += (v - c.mean) * (v - c.mean);
  c.sd = std::sqrt(squares / static_cast<double>(values.size() - 1));
  return c;
}

std::string CsvRuns(const std::vector<std::uint64_t>& seeds, const std::vector<std::vector<SpotFigures>>& per_seed) {
  std::string csv = "seed,policy";
  if (!per_seed.empty() && !per_seed.front().empty()) {
    for (const auto& [name, value] : SpotColumns(per_seed.front().front())) csv += "," + name;
  }
  csv += "\n";
  for (size_t s = 0; s < per_seed.size(); ++s) {
    for (const SpotFigures& f : per_seed[s]) {
      csv += std::to_string(seeds[s]) + "," + f.policy;
      for (const auto& [name, value] : SpotColumns(f)) csv += "," + FormatFixed(value, 4);
      csv += "\n";
    }
  }
  return csv;
}

std::string CsvSummary(const std::vector<SpotPolicySummary>& summary) {
  std::string csv = "policy,seeds";
  if (!summary.empty()) {
    for (const auto& c : summary.front().columns) csv += "," + c.name + "_mean," + c.name + "_sd";
  }
  csv += "\n";
  for (const SpotPolicySummary& p : summary) {
    csv += p.policy + "," + std::to_string(p.seeds);
    for (const auto& c : p.columns) csv += "," + FormatFixed(c.mean, 4) + "," + FormatFixed(c.sd, 4);
    csv += "\n";
  }
  return csv;
}

}  // namespace

SpotFigures ComputeSpotFigures(const Workload& workload, const ReplayResult& result, const SpotCounters& counters) {
  SpotFigures f;
  f.policy = result.scheduler;
  f.replay = ComputeFigures(workload, result);
  f.spot = counters;
  f.work_lost_gpu_seconds = result.lost_gpu_seconds;
  f.stranded_gpu_seconds = result.held_incomplete_gpu_seconds;
  return f;
}

std::vector<std::pair<std::string, double>> SpotColumns(const SpotFigures& f) {
  const SpotCounters& c = f.spot;
  return {{"lost_gpu_hours", Hours(f.LostGpuSeconds())},
          {"work_lost_gpu_hours", Hours(f.work_lost_gpu_seconds)},
          {"stranded_gpu_hours", Hours(f.stranded_gpu_seconds)},
          {"jct_mean_hours", Hours(f.replay.jct.mean)},
          {"jct_p50_hours", Hours(f.replay.jct.p50)},
          {"jct_p95_hours", Hours(f.replay.jct.p95)},
          {"gangs_broken", c.gangs_broken},
          {"jobs_killed", c.jobs_killed},
          {"notices", c.notices},
          {"gangs_noticed", c.gangs_noticed},
          {"checkpoints_requested", c.checkpoints_requested},
          {"checkpoints_in_time", c.checkpoints_in_time},
          {"checkpoints_late", c.checkpoints_late},
          {"evicted_without_checkpoint", c.evicted_without_checkpoint},
          {"evictions", f.replay.preemptions},
          {"finished", f.replay.finished},
          {"jobs", f.replay.jobs},
          {"utilisation", f.replay.utilisation}};
}

const SpotPolicySummary::Column& SpotPolicySummary::operator[](const std::string& name) const {
  for (const Column& c : columns) {
    if (c.name == name) return c;
  }
  throw std::out_of_range("no spot summary column " + name);
}

std::vector<SpotPolicySummary> SummarizeSpotPolicies(const std::vector<std::vector<SpotFigures>>& per_seed) {
  std::vector<SpotPolicySummary> out;
  if (per_seed.empty()) return out;
  for (size_t p = 0; p < per_seed.front().size(); ++p) {
    SpotPolicySummary summary;
    summary.policy = per_seed.front()[p].policy;
    summary.seeds = static_cast<int>(per_seed.size());
    const auto names = SpotColumns(per_seed.front()[p]);
    for (size_t c = 0; c < names.size(); ++c) {
      std::vector<double> values;
      for (const auto& seed : per_seed) values.push_back(SpotColumns(seed[p])[c].second);
      summary.columns.push_back(Spread(names[c].first, values));
    }
    out.push_back(std::move(summary));
  }
  return out;
}

void WriteSpotSummary(const std::string& out_dir, const std::vector<std::uint64_t>& seeds,
                      const std::vector<std::vector<SpotFigures>>& per_seed,
                      const std::vector<SpotPolicySummary>& summary, const std::vector<std::string>& setup) {
  nlohmann::json policies = nlohmann::json::array();
  for (const SpotPolicySummary& p : summary) {
    nlohmann::json row = {{"policy", p.policy}, {"seeds", p.seeds}};
    for (const auto& c : p.columns) row[c.name] = {{"mean", c.mean}, {"sd", c.sd}};
    policies.push_back(std::move(row));
  }
  nlohmann::json runs = nlohmann::json::array();
  for (size_t s = 0; s < per_seed.size(); ++s) {
    for (const SpotFigures& f : per_seed[s]) {
      nlohmann::json row = {{"seed", seeds[s]}, {"policy", f.policy}};
      for (const auto& [name, value] : SpotColumns(f)) row[name] = value;
      runs.push_back(std::move(row));
    }
  }
  const nlohmann::json json = {{"policies", policies}, {"runs", runs}, {"setup", setup}};
  WriteTextFile(out_dir + "/summary.csv", CsvSummary(summary));
  WriteTextFile(out_dir + "/runs.csv", CsvRuns(seeds, per_seed));
  WriteTextFile(out_dir + "/summary.json", json.dump(2) + "\n");
}

}  // namespace gangplank::simulator

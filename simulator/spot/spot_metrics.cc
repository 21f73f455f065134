#include "simulator/spot/spot_metrics.h"

#include <nlohmann/json.hpp>

#include "simulator/time_replay/replay_setup.h"

namespace gangplank::simulator {
namespace {

double Hours(double seconds) { return seconds / 3600; }

// Column names and values of one policy's row, shared by the CSV and the JSON.
std::vector<std::pair<std::string, double>> Row(const SpotFigures& f) {
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

void WriteSpotSummary(const std::string& out_dir, const std::vector<SpotFigures>& figures,
                      const PreemptionSummary& preemptions, const std::vector<std::string>& setup) {
  std::string csv = "policy";
  if (!figures.empty()) {
    for (const auto& [name, value] : Row(figures.front())) csv += "," + name;
  }
  csv += "\n";
  nlohmann::json policies = nlohmann::json::array();
  for (const SpotFigures& f : figures) {
    csv += f.policy;
    nlohmann::json row = {{"policy", f.policy}};
    for (const auto& [name, value] : Row(f)) {
      csv += "," + FormatFixed(value, 4);
      row[name] = value;
    }
    csv += "\n";
    policies.push_back(std::move(row));
  }
  const nlohmann::json summary = {{"policies", policies},
                                  {"reclaims",
                                   {{"nodes", preemptions.nodes},
                                    {"spot_nodes", preemptions.spot_nodes},
                                    {"reclaims", preemptions.reclaims},
                                    {"horizon_hours", Hours(preemptions.horizon_seconds)}}},
                                  {"setup", setup}};
  WriteTextFile(out_dir + "/summary.csv", csv);
  WriteTextFile(out_dir + "/summary.json", summary.dump(2) + "\n");
}

}  // namespace gangplank::simulator

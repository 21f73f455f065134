#include "simulator/faults/policy_summary.h"

#include <cmath>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "simulator/time_replay/replay_setup.h"

namespace gangplank::simulator {
namespace {

// Mean and sample sd of one column of one policy over every seed.
PolicySummary::Column OverSeeds(const std::vector<std::vector<PolicyRun>>& per_seed, size_t policy, size_t column) {
  PolicySummary::Column c{per_seed.front()[policy].columns[column].first, 0, 0};
  const double n = static_cast<double>(per_seed.size());
  for (const auto& seed : per_seed) c.mean += seed[policy].columns[column].second / n;
  if (per_seed.size() < 2) return c;
  double squares = 0;
  for (const auto& seed : per_seed) squares += std::pow(seed[policy].columns[column].second - c.mean, 2);
  c.sd = std::sqrt(squares / (n - 1));
  return c;
}

std::string RunsCsv(const std::vector<std::uint64_t>& seeds, const std::vector<std::vector<PolicyRun>>& per_seed) {
  std::string csv = "seed,policy";
  if (!per_seed.empty() && !per_seed.front().empty()) {
    for (const auto& column : per_seed.front().front().columns) csv += "," + column.first;
  }
  csv += "\n";
  for (size_t s = 0; s < per_seed.size(); ++s) {
    for (const PolicyRun& run : per_seed[s]) {
      csv += std::to_string(seeds[s]) + "," + run.policy;
      for (const auto& column : run.columns) csv += "," + FormatFixed(column.second, 4);
      csv += "\n";
    }
  }
  return csv;
}

std::string SummaryCsv(const std::vector<PolicySummary>& summary) {
  std::string csv = "policy,seeds";
  if (!summary.empty()) {
    for (const auto& c : summary.front().columns) csv += "," + c.name + "_mean," + c.name + "_sd";
  }
  csv += "\n";
  for (const PolicySummary& p : summary) {
    csv += p.policy + "," + std::to_string(p.seeds);
    for (const auto& c : p.columns) csv += "," + FormatFixed(c.mean, 4) + "," + FormatFixed(c.sd, 4);
    csv += "\n";
  }
  return csv;
}

nlohmann::json SummaryJson(const std::vector<std::uint64_t>& seeds, const std::vector<std::vector<PolicyRun>>& per_seed,
                           const std::vector<PolicySummary>& summary, const std::vector<std::string>& setup) {
  nlohmann::json policies = nlohmann::json::array();
  for (const PolicySummary& p : summary) {
    nlohmann::json row = {{"policy", p.policy}, {"seeds", p.seeds}};
    for (const auto& c : p.columns) row[c.name] = {{"mean", c.mean}, {"sd", c.sd}};
    policies.push_back(std::move(row));
  }
  nlohmann::json runs = nlohmann::json::array();
  for (size_t s = 0; s < per_seed.size(); ++s) {
    for (const PolicyRun& run : per_seed[s]) {
      nlohmann::json row = {{"seed", seeds[s]}, {"policy", run.policy}};
      for (const auto& [name, value] : run.columns) row[name] = value;
      runs.push_back(std::move(row));
    }
  }
  return {{"policies", policies}, {"runs", runs}, {"setup", setup}};
}

}  // namespace

const PolicySummary::Column& PolicySummary::operator[](const std::string& name) const {
  for (const Column& c : columns) {
    if (c.name == name) return c;
  }
  throw std::out_of_range("no summary column " + name);
}

std::vector<PolicySummary> SummarizePolicyRuns(const std::vector<std::vector<PolicyRun>>& per_seed) {
  std::vector<PolicySummary> out;
  if (per_seed.empty()) return out;
  for (size_t p = 0; p < per_seed.front().size(); ++p) {
    PolicySummary summary{per_seed.front()[p].policy, static_cast<int>(per_seed.size()), {}};
    for (size_t c = 0; c < per_seed.front()[p].columns.size(); ++c) {
      summary.columns.push_back(OverSeeds(per_seed, p, c));
    }
    out.push_back(std::move(summary));
  }
  return out;
}

void WritePolicySummary(const std::string& out_dir, const std::vector<std::uint64_t>& seeds,
                        const std::vector<std::vector<PolicyRun>>& per_seed,
                        const std::vector<PolicySummary>& summary, const std::vector<std::string>& setup) {
  WriteTextFile(out_dir + "/summary.csv", SummaryCsv(summary));
  WriteTextFile(out_dir + "/runs.csv", RunsCsv(seeds, per_seed));
  WriteTextFile(out_dir + "/summary.json", SummaryJson(seeds, per_seed, summary, setup).dump(2) + "\n");
}

}  // namespace gangplank::simulator

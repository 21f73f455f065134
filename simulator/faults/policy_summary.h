// Figures of several policies replayed under several seeds, as named columns: each column's mean and sample sd over
// the seeds, and the files they go to (summary.csv, runs.csv, summary.json). Any replay that compares policies over
// seeds can describe a run as columns and use these.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace gangplank::simulator {

// One policy's figures in one run, by column name, in file order (the same names for every run).
struct PolicyRun {
  std::string policy;
  std::vector<std::pair<std::string, double>> columns;
};

struct PolicySummary {
  std::string policy;
  int seeds = 0;
  struct Column {
    std::string name;
    double mean = 0, sd = 0;  // sd: sample sd over seeds, 0 with one seed.
  };
  std::vector<Column> columns;
  // The column of that name; throws std::out_of_range for an unknown name.
  const Column& operator[](const std::string& name) const;
};

// `per_seed[s][p]`: seed s, policy p (the same policies in the same order for every seed).
std::vector<PolicySummary> SummarizePolicyRuns(const std::vector<std::vector<PolicyRun>>& per_seed);

// summary.csv (per policy: mean and sd of every column), runs.csv (per seed and policy) and summary.json (both, with
// the setup lines) in `out_dir`. Throws std::runtime_error naming a file it cannot write.
void WritePolicySummary(const std::string& out_dir, const std::vector<std::uint64_t>& seeds,
                        const std::vector<std::vector<PolicyRun>>& per_seed,
                        const std::vector<PolicySummary>& summary, const std::vector<std::string>& setup);

}  // namespace gangplank::simulator

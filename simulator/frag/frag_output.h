// Writes a fragmentation replay's results: per-run curve CSVs, a summary CSV and JSON, and report.html
// with the curves, the summary and the FGD paper's published numbers beside ours.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "simulator/frag/frag_runner.h"

namespace gangplank::simulator::frag {

struct PublishedResult {
  std::string policy;
  double unallocated_mean;
  double unallocated_sd;
  std::optional<double> allocated_at_130_median;
};

// Weng et al., ATC '23 on openb, seeds 42..51 (data/README.md).
const std::vector<PublishedResult>& PublishedOpenbResults();

struct FragRunInfo {
  std::string nodes_path;
  std::string pods_path;
  double target_ratio = 1.3;
  double wall_seconds = 0;
  std::string ties = "node-order";  // The tie rule, as the --ties flag names it.
  // The derived workload shape and its seed (--derive), empty for the trace as it is. The paper's published
  // figures are shown only for the trace as it is.
  std::string derived;
};

// Creates `out_dir` if needed; throws std::runtime_error naming the path on I/O failure.
void WriteFragOutputs(const std::string& out_dir, const std::vector<FragReplayResult>& results,
                      const std::vector<PolicySummary>& summary, const FragRunInfo& info);

// The summary as CSV text (also used by tests).
std::string SummaryCsv(const std::vector<PolicySummary>& summary, bool with_published = true);

}  // namespace gangplank::simulator::frag

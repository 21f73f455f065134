// Writes a fragmentation replay's results: per-run curve CSVs, a summary CSV and JSON, and report.html
// with the curves, the summary and, for the trace they belong to, the FGD paper's published numbers
// beside ours.
#pragma once

#include <string>
#include <vector>

#include "simulator/frag/frag_runner.h"

namespace gangplank::simulator::frag {

struct FragRunInfo {
  std::string nodes_path;
  std::string pods_path;
  double target_ratio = 1.3;
  double wall_seconds = 0;
  std::string ties = "node-order";  // The tie rule, as the --ties flag names it.
  // The derived workload shape and its seed (--derive), empty for the trace as it is.
  std::string derived;
  // Whether the paper's published figures belong to this run: the bundled openb trace as it is
  // (published_figures.h).
  bool published = false;
};

// Creates `out_dir` if needed; throws std::runtime_error naming the path on I/O failure.
void WriteFragOutputs(const std::string& out_dir, const std::vector<FragReplayResult>& results,
                      const std::vector<PolicySummary>& summary, const FragRunInfo& info);

// The summary as CSV text (also used by tests).
std::string SummaryCsv(const std::vector<PolicySummary>& summary, bool with_published = true);

}  // namespace gangplank::simulator::frag

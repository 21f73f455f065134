#include "simulator/faults/fault_table.h"

#include "simulator/time_replay/replay_setup.h"

namespace gangplank::simulator {
namespace {

// A column of the table: header, summary column (empty: unfinished jobs), decimals, whether the sd is shown.
struct TableColumn {
  const char* header;
  const char* name;
  int digits;
  bool with_sd;
};

constexpr TableColumn kColumns[] = {{"lost GPU-h", "lost_gpu_hours", 1, true},
                                    {"of which stranded", "stranded_gpu_hours", 1, false},
                                    {"requeued p50 min", "requeue_p50_minutes", 1, false},
                                    {"requeued p99 min", "requeue_p99_minutes", 1, false},
                                    {"running again p50 min", "recovery_p50_minutes", 0, false},
                                    {"running again p99 min", "recovery_p99_minutes", 0, true},
                                    {"JCT mean h", "jct_mean_hours", 2, true},
                                    {"JCT p95 h", "jct_p95_hours", 2, true},
                                    {"JCT of hit jobs h", "hit_jct_mean_hours", 1, true},
                                    {"jobs failed", "jobs_failed", 1, false},
                                    {"interruptions", "interruptions", 1, false},
                                    {"checkpointed", "checkpointed_restarts", 1, false},
                                    {"unfinished jobs", "", 1, false}};

std::string Row(const std::vector<std::string>& cells) {
  std::string line = "|";
  for (const std::string& c : cells) line += " " + c + " |";
  return line + "\n";
}

std::string Cell(const PolicySummary& p, const TableColumn& c) {
  if (std::string(c.name).empty()) return FormatFixed(p["jobs"].mean - p["finished"].mean, c.digits);
  const PolicySummary::Column& v = p[c.name];
  return FormatFixed(v.mean, c.digits) + (c.with_sd ? " ± " + FormatFixed(v.sd, c.digits) : "");
}

}  // namespace

std::string FormatFaultTable(const std::vector<PolicySummary>& summary) {
  std::vector<std::string> header = {"policy"};
  for (const TableColumn& c : kColumns) header.push_back(c.header);
  std::string table = Row(header) + Row(std::vector<std::string>(header.size(), "---"));
  for (const PolicySummary& p : summary) {
    std::vector<std::string> cells = {p.policy};
    for (const TableColumn& c : kColumns) cells.push_back(Cell(p, c));
    table += Row(cells);
  }
  return table;
}

}  // namespace gangplank::simulator

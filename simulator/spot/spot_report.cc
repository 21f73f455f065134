#include "simulator/spot/spot_report.h"

#include <functional>

#include "simulator/report/html_report.h"
#include "simulator/report/svg_chart.h"
#include "simulator/time_replay/replay_setup.h"

namespace gangplank::simulator {
namespace {

// The summary's columns: header, column name, decimals, and whether the sd is shown.
struct SummaryColumn {
  std::string header, name;
  int digits;
  bool with_sd;
};

const std::vector<SummaryColumn>& SummaryColumns() {
  static const std::vector<SummaryColumn> columns = {{"lost GPU-h", "lost_gpu_hours", 1, true},
                                                     {"of which stranded", "stranded_gpu_hours", 1, false},
                                                     {"JCT mean h", "jct_mean_hours", 2, true},
                                                     {"JCT median h", "jct_p50_hours", 2, false},
                                                     {"JCT p95 h", "jct_p95_hours", 2, true},
                                                     {"gangs broken", "gangs_broken", 1, false},
                                                     {"jobs killed", "jobs_killed", 1, false},
                                                     {"gangs noticed", "gangs_noticed", 1, false},
                                                     {"checkpoints in time", "checkpoints_in_time", 1, false},
                                                     {"late", "checkpoints_late", 1, false},
                                                     {"evicted w/o checkpoint", "evicted_without_checkpoint", 1, false},
                                                     {"unfinished jobs", "", 0, false}};
  return columns;
}

std::vector<std::string> SummaryHeader() {
  std::vector<std::string> header = {"policy"};
  for (const SummaryColumn& c : SummaryColumns()) header.push_back(c.header);
  return header;
}

std::vector<std::string> SummaryCells(const SpotPolicySummary& p) {
  std::vector<std::string> cells = {p.policy};
  for (const SummaryColumn& c : SummaryColumns()) {
    if (c.name.empty()) {
      cells.push_back(FormatFixed(p["jobs"].mean - p["finished"].mean, 1));
      continue;
    }
    const SpotPolicySummary::Column& v = p[c.name];
    cells.push_back(FormatFixed(v.mean, c.digits) + (c.with_sd ? " ± " + FormatFixed(v.sd, c.digits) : ""));
  }
  return cells;
}

std::vector<std::string> RunCells(std::uint64_t seed, const SpotFigures& f) {
  std::vector<std::string> cells = {std::to_string(seed), f.policy};
  for (const auto& [name, value] : SpotColumns(f)) cells.push_back(FormatFixed(value, 2));
  return cells;
}

std::string MarkdownRow(const std::vector<std::string>& cells) {
  std::string line = "|";
  for (const std::string& c : cells) line += " " + c + " |";
  return line + "\n";
}

std::string ChartOverTime(const SpotSeedRun& run, const std::string& title, const std::string& y_label,
                          const std::function<double(const ReplaySample&)>& value) {
  report::LineChart chart;
  chart.title = title + " (spot seed " + std::to_string(run.seed) + ")";
  chart.x_label = "simulated day";
  chart.y_label = y_label;
  chart.y_min = 0;
  for (const ReplayResult& r : run.results) {
    report::Series s;
    s.name = r.scheduler;
    for (const ReplaySample& sample : r.samples) {
      s.x.push_back(sample.time / 86400);
      s.y.push_back(value(sample));
    }
    chart.series.push_back(std::move(s));
  }
  return report::RenderLineChart(chart);
}

std::vector<std::vector<std::string>> ReclaimRows(const std::vector<SpotSeedRun>& runs) {
  std::vector<std::vector<std::string>> rows;
  for (const SpotSeedRun& run : runs) {
    for (const NodePreemption& p : run.draw.preemptions) {
      rows.push_back({std::to_string(run.seed), "node-" + std::to_string(p.node), FormatFixed(p.notice_at / 86400, 3),
                      FormatFixed(p.terminate_at / 86400, 3), FormatFixed(p.replaced_at / 86400, 3)});
    }
  }
  return rows;
}

void AddRunTables(report::HtmlReport& page, const SpotReplayOutput& out) {
  page.AddHeading("Every seed");
  std::vector<std::string> header = {"seed", "policy"};
  if (!out.runs.empty() && !out.runs.front().figures.empty()) {
    for (const auto& [name, value] : SpotColumns(out.runs.front().figures.front())) header.push_back(name);
  }
  std::vector<std::vector<std::string>> rows;
  for (const SpotSeedRun& run : out.runs) {
    for (const SpotFigures& f : run.figures) rows.push_back(RunCells(run.seed, f));
  }
  page.AddTable(header, rows);
}

}  // namespace

std::string FormatSpotTable(const std::vector<SpotPolicySummary>& summary) {
  const std::vector<std::string> header = SummaryHeader();
  std::string table = MarkdownRow(header);
  table += MarkdownRow(std::vector<std::string>(header.size(), "---"));
  for (const SpotPolicySummary& p : summary) table += MarkdownRow(SummaryCells(p));
  return table;
}

std::string RenderSpotReport(const SpotReplayOutput& out, const std::vector<std::string>& setup_lines) {
  report::HtmlReport page("gangplank spot replay: Philly trace on spot nodes");
  page.AddHeading("Setup");
  for (const std::string& line : setup_lines) page.AddParagraph(line);
  page.AddHeading("Summary (mean ± sample sd over seeds; counts are means per seed)");
  std::vector<std::vector<std::string>> rows;
  for (const SpotPolicySummary& p : out.summary) rows.push_back(SummaryCells(p));
  page.AddTable(SummaryHeader(), rows);
  page.AddParagraph(
      "Lost GPU-hours = work thrown away (GPUs x time since the last checkpoint kept) + GPU time spent writing a "
      "checkpoint asked for on notice + GPU time held by the survivors of broken gangs until they were noticed "
      "failed (stranded). JCT over finished jobs. A gang is broken when a node goes under one of its pods while "
      "other pods of it hold GPUs elsewhere.");
  AddRunTables(page, out);
  if (!out.runs.empty()) {
    const SpotSeedRun& first = out.runs.front();
    page.AddHeading("Over time");
    page.AddRawSvg(ChartOverTime(first, "GPUs running", "GPUs", [](const ReplaySample& s) { return s.running_gpus; }));
    page.AddRawSvg(ChartOverTime(first, "GPUs stranded by broken gangs", "GPUs",
                                 [](const ReplaySample& s) { return s.held_incomplete; }));
    page.AddRawSvg(ChartOverTime(first, "Jobs waiting", "jobs", [](const ReplaySample& s) { return s.waiting_jobs; }));
  }
  page.AddHeading("Reclaims (the same for every policy of a seed)");
  page.AddTable({"seed", "node", "notice (day)", "gone (day)", "replaced (day)"}, ReclaimRows(out.runs));
  return page.Render();
}

}  // namespace gangplank::simulator

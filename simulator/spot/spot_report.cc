#include "simulator/spot/spot_report.h"

#include <algorithm>
#include <functional>

#include "simulator/report/html_report.h"
#include "simulator/report/svg_chart.h"
#include "simulator/time_replay/replay_setup.h"

namespace gangplank::simulator {
namespace {

std::string Fixed(double v, int digits = 2) { return FormatFixed(v, digits); }

std::string Hours(double seconds, int digits = 2) { return Fixed(seconds / 3600, digits); }

std::vector<std::string> Header() {
  return {"policy",
          "lost GPU-h",
          "of which stranded",
          "JCT mean h",
          "JCT median h",
          "JCT p95 h",
          "gangs broken",
          "jobs killed",
          "gangs noticed",
          "checkpoints in time",
          "late",
          "evicted w/o checkpoint",
          "finished"};
}

std::vector<std::string> Cells(const SpotFigures& f) {
  const SpotCounters& c = f.spot;
  return {f.policy,
          Hours(f.LostGpuSeconds(), 1),
          Hours(f.stranded_gpu_seconds, 1),
          Hours(f.replay.jct.mean),
          Hours(f.replay.jct.p50),
          Hours(f.replay.jct.p95),
          std::to_string(c.gangs_broken),
          std::to_string(c.jobs_killed),
          std::to_string(c.gangs_noticed),
          std::to_string(c.checkpoints_in_time),
          std::to_string(c.checkpoints_late),
          std::to_string(c.evicted_without_checkpoint),
          std::to_string(f.replay.finished) + " / " + std::to_string(f.replay.jobs)};
}

std::string MarkdownRow(const std::vector<std::string>& cells) {
  std::string line = "|";
  for (const std::string& c : cells) line += " " + c + " |";
  return line + "\n";
}

std::string ChartOverTime(const SpotReplayOutput& out, const std::string& title, const std::string& y_label,
                          const std::function<double(const ReplaySample&)>& value) {
  report::LineChart chart;
  chart.title = title;
  chart.x_label = "simulated day";
  chart.y_label = y_label;
  chart.y_min = 0;
  for (const ReplayResult& r : out.results) {
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

std::vector<std::vector<std::string>> ReclaimRows(const std::vector<NodePreemption>& preemptions) {
  std::vector<std::vector<std::string>> rows;
  for (const NodePreemption& p : preemptions) {
    rows.push_back({"node-" + std::to_string(p.node), Fixed(p.notice_at / 86400, 3), Fixed(p.terminate_at / 86400, 3),
                    Fixed(p.replaced_at / 86400, 3)});
  }
  return rows;
}

}  // namespace

std::string FormatSpotTable(const std::vector<SpotFigures>& figures) {
  const std::vector<std::string> header = Header();
  std::string table = MarkdownRow(header);
  table += MarkdownRow(std::vector<std::string>(header.size(), "---"));
  for (const SpotFigures& f : figures) table += MarkdownRow(Cells(f));
  return table;
}

std::string RenderSpotReport(const SpotReplayOutput& out, const std::vector<std::string>& setup_lines) {
  report::HtmlReport page("gangplank spot replay: Philly trace on spot nodes");
  page.AddHeading("Setup");
  for (const std::string& line : setup_lines) page.AddParagraph(line);
  page.AddHeading("Summary");
  std::vector<std::vector<std::string>> rows;
  for (const SpotFigures& f : out.figures) rows.push_back(Cells(f));
  page.AddTable(Header(), rows);
  page.AddParagraph(
      "Lost GPU-hours = work thrown away (GPUs x time since the "
      "last checkpoint kept) + GPU time spent writing a "
      "checkpoint asked for on notice + GPU time held by the "
      "survivors of broken gangs until they were noticed "
      "failed (stranded). JCT over finished jobs. A gang is "
      "broken when a node goes under one of its pods while "
      "other pods of it hold GPUs elsewhere.");
  page.AddHeading("Over time");
  page.AddRawSvg(ChartOverTime(out, "GPUs running", "GPUs", [](const ReplaySample& s) { return s.running_gpus; }));
  page.AddRawSvg(ChartOverTime(out, "GPUs stranded by broken gangs", "GPUs",
                               [](const ReplaySample& s) { return s.held_incomplete; }));
  page.AddRawSvg(ChartOverTime(out, "Jobs waiting", "jobs", [](const ReplaySample& s) { return s.waiting_jobs; }));
  page.AddHeading("Reclaims (the same for every policy)");
  page.AddTable({"node", "notice (day)", "gone (day)", "replaced (day)"}, ReclaimRows(out.preemptions));
  return page.Render();
}

}  // namespace gangplank::simulator

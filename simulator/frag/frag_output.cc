#include "simulator/frag/frag_output.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "engine/policies/registry.h"
#include "simulator/frag/published_figures.h"
#include "simulator/report/html_report.h"
#include "simulator/report/svg_chart.h"

namespace gangplank::simulator::frag {
namespace {

namespace fs = std::filesystem;

std::string Fixed(double v, int digits = 2) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

void WriteFile(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) throw std::runtime_error(path.string() + ": cannot write file");
}

std::string DisplayName(const std::string& policy) {
  try {
    return engine::policies::FindPolicy(policy).display_name;
  } catch (const std::invalid_argument&) {
    return policy;
  }
}

// Mean allocation curve of one policy over its seeds, sampled at fixed arrived-workload points.
report::Series MeanCurve(const std::string& policy, const std::vector<FragReplayResult>& results, double max_x) {
  report::Series s;
  s.name = DisplayName(policy);
  for (double x = 0; x <= max_x + 1e-9; x += 1.0) {
    double sum = 0;
    int n = 0;
    for (const FragReplayResult& r : results) {
      if (r.policy != policy || r.curve.empty() || r.curve.back().arrived_percent < x) continue;
      sum += AllocationAt(r.curve, x);
      ++n;
    }
    if (n == 0) break;
    s.x.push_back(x);
    s.y.push_back(sum / n);
  }
  return s;
}

}  // namespace

std::string SummaryCsv(const std::vector<PolicySummary>& summary, bool with_published) {
  std::string csv =
      "policy,runs,unallocated_at_100_mean,unallocated_at_100_sd,allocated_at_end_mean,allocated_at_end_median,"
      "failed_pods_mean,paper_unallocated_mean,paper_unallocated_sd\n";
  for (const PolicySummary& s : summary) {
    const PublishedResult* p = with_published ? PublishedOpenbResult(s.policy) : nullptr;
    csv += s.policy + "," + std::to_string(s.runs) + "," + Fixed(s.unallocated_at_100_mean, 3) + "," +
           Fixed(s.unallocated_at_100_sd, 3) + "," + Fixed(s.allocated_at_130_mean, 3) + "," +
           Fixed(s.allocated_at_130_median, 3) + "," + Fixed(s.failed_pods_mean, 1) + "," +
           (p ? Fixed(p->unallocated_mean) : "") + "," + (p ? Fixed(p->unallocated_sd) : "") + "\n";
  }
  return csv;
}

void WriteFragOutputs(const std::string& out_dir, const std::vector<FragReplayResult>& results,
                      const std::vector<PolicySummary>& summary, const FragRunInfo& info) {
  const fs::path out(out_dir);
  std::error_code ec;
  fs::create_directories(out / "curves", ec);
  if (ec) throw std::runtime_error(out_dir + ": cannot create output directory: " + ec.message());

  for (const FragReplayResult& r : results) {
    std::string csv = "arrived_percent,allocated_percent\n";
    for (const CurvePoint& p : Downsample(r.curve, 0.5)) {
      csv += Fixed(p.arrived_percent, 3) + "," + Fixed(p.allocated_percent, 3) + "\n";
    }
    WriteFile(out / "curves" / (r.policy + "_seed" + std::to_string(r.seed) + ".csv"), csv);
  }
  const bool with_published = info.published;
  WriteFile(out / "summary.csv", SummaryCsv(summary, with_published));

  nlohmann::json j;
  j["nodes"] = info.nodes_path;
  j["pods"] = info.pods_path;
  j["target_ratio"] = info.target_ratio;
  j["wall_seconds"] = info.wall_seconds;
  j["ties"] = info.ties;
  if (!info.derived.empty()) j["derived"] = info.derived;
  for (const PolicySummary& s : summary) {
    nlohmann::json p{{"policy", s.policy},
                     {"runs", s.runs},
                     {"unallocated_at_100_mean", s.unallocated_at_100_mean},
                     {"unallocated_at_100_sd", s.unallocated_at_100_sd},
                     {"allocated_at_end_mean", s.allocated_at_130_mean},
                     {"allocated_at_end_median", s.allocated_at_130_median},
                     {"failed_pods_mean", s.failed_pods_mean},
                     {"wall_seconds", s.wall_seconds}};
    if (const PublishedResult* pub = with_published ? PublishedOpenbResult(s.policy) : nullptr) {
      p["paper_unallocated_mean"] = pub->unallocated_mean;
      p["paper_unallocated_sd"] = pub->unallocated_sd;
    }
    j["policies"].push_back(std::move(p));
  }
  for (const FragReplayResult& r : results) {
    j["runs"].push_back({{"policy", r.policy},
                         {"seed", r.seed},
                         {"unallocated_at_100", 100.0 - AllocationAt(r.curve, 100.0)},
                         {"allocated_at_end", r.curve.empty() ? 0.0 : r.curve.back().allocated_percent},
                         {"pods_arrived", r.pods_arrived},
                         {"pods_failed", r.pods_failed}});
  }
  WriteFile(out / "summary.json", j.dump(2) + "\n");

  // The report.
  report::HtmlReport page("gangplank fragmentation replay (openb)");
  int seeds = summary.empty() ? 0 : summary.front().runs;
  page.AddParagraph("Replay of the Alibaba openb GPU trace with the method of Weng et al., \"Beware of Fragmentation\" "
                    "(USENIX ATC 2023): pods shuffled per seed, topped up by resampling to " +
                    Fixed(info.target_ratio * 100, 0) +
                    "% of the cluster's GPU capacity, placed one by one with no departures and no retries. " +
                    std::to_string(seeds) + " seed(s) per policy; wall time " + Fixed(info.wall_seconds, 1) + " s.");
  page.AddParagraph("Nodes: " + info.nodes_path + "; pods: " + info.pods_path +
                    (info.derived.empty() ? "" : " as the derived shape " + info.derived + " (see data/README.md)") +
                    (with_published ? "" : "; the paper's figures belong to the bundled openb trace as it is") +
                    ". Equal best scores: " +
                    (info.ties == "random" ? std::string("broken uniformly at random (upstream kube-scheduler).")
                                           : std::string("first node of a seeded random node order (the paper's "
                                                         "simulator).")));
  page.AddHeading("Unallocated GPUs when the arrived workload reaches 100% of capacity");
  std::vector<std::vector<std::string>> rows;
  for (const PolicySummary& s : summary) {
    const PublishedResult* p = with_published ? PublishedOpenbResult(s.policy) : nullptr;
    rows.push_back({DisplayName(s.policy), Fixed(s.unallocated_at_100_mean) + " ± " + Fixed(s.unallocated_at_100_sd),
                    p ? Fixed(p->unallocated_mean) + " ± " + Fixed(p->unallocated_sd) : "—",
                    Fixed(s.allocated_at_130_median),
                    p && p->allocated_at_130_median ? Fixed(*p->allocated_at_130_median) : "—",
                    Fixed(s.failed_pods_mean, 0)});
  }
  page.AddTable({"policy", "unallocated % (ours, mean ± sd)", "unallocated % (paper)",
                 "allocation % at end (median)", "paper (median at 130%)", "failed pods (mean)"},
                rows);

  double max_x = 0;
  for (const FragReplayResult& r : results) {
    if (!r.curve.empty()) max_x = std::max(max_x, r.curve.back().arrived_percent);
  }
  report::LineChart all;
  all.title = "GPU allocation vs arrived workload (mean over seeds)";
  all.x_label = "arrived workload (% of GPU capacity)";
  all.y_label = "GPU allocation (%)";
  for (const PolicySummary& s : summary) all.series.push_back(MeanCurve(s.policy, results, max_x));
  all.x_min = 0;
  all.y_min = 0;
  page.AddHeading("Allocation curves");
  page.AddRawSvg(report::RenderLineChart(all));

  report::LineChart zoom = all;
  zoom.title = "Zoom: arrived workload 80% and above";
  zoom.x_min = 80;
  zoom.y_min = 70;
  zoom.y_max = 100;
  page.AddRawSvg(report::RenderLineChart(zoom));

  page.AddHeading("Per-seed curves");
  for (const PolicySummary& s : summary) {
    report::LineChart c;
    c.title = DisplayName(s.policy) + ": each seed";
    c.x_label = all.x_label;
    c.y_label = all.y_label;
    c.x_min = 60;
    c.y_min = 60;
    c.y_max = 100;
    c.height = 300;
    for (const FragReplayResult& r : results) {
      if (r.policy != s.policy) continue;
      report::Series series;
      series.name = "seed " + std::to_string(r.seed);
      for (const CurvePoint& p : Downsample(r.curve, 0.5)) {
        series.x.push_back(p.arrived_percent);
        series.y.push_back(p.allocated_percent);
      }
      c.series.push_back(std::move(series));
    }
    page.AddRawSvg(report::RenderLineChart(c));
  }
  page.AddHeading("Notes");
  page.AddParagraph(
      "At 100% arrived workload the unallocated share equals the GPU demand of the pods that failed so far, and "
      "also the free capacity left: nearly all of it is the leftover of shared GPUs (every 810-milli pod leaves "
      "190 milli that only the rare pods of 190 milli or less can use), plus GPUs on nodes whose CPU is used up.");
  page.AddParagraph(
      "Baselines follow the score plugins of the paper's public simulator (hkust-adsl/kubernetes-scheduler-simulator): "
      "integer 0..100 scores with equal best scores broken at random. FGD there turns the fragmentation decrease into "
      "trunc(100 * sigmoid(decrease / 1000)), so many nodes tie and chance decides; with that rule this replay gives "
      "FGD far more unallocated GPUs than the paper reports, while Random and BestFit match it. FragPack (ours) is "
      "described in engine/policies/frag_pack/frag_pack.h.");
  page.AddParagraph("Files: summary.csv, summary.json, curves/<policy>_seed<seed>.csv (arrived %, allocated %).");
  WriteFile(out / "report.html", page.Render());
}

}  // namespace gangplank::simulator::frag

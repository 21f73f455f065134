#include "simulator/time_replay/replay_report.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <numeric>

#include "simulator/report/html_report.h"
#include "simulator/report/svg_chart.h"
#include "simulator/time_replay/prediction_accuracy.h"
#include "simulator/time_replay/replay_setup.h"

namespace gangplank::simulator {
namespace {

std::string Fixed(double v, int digits = 2) { return FormatFixed(v, digits); }

std::string Hours(double seconds) { return Fixed(seconds / 3600, 2); }

report::Series SeriesOf(const ReplayResult& r, const std::function<double(const ReplaySample&)>& value,
                        const std::string& name, bool dashed = false) {
  report::Series s;
  s.name = name;
  s.dashed = dashed;
  for (const ReplaySample& sample : r.samples) {
    s.x.push_back(sample.time / 86400);
    s.y.push_back(value(sample));
  }
  return s;
}

// Per scheduler that predicted runtimes: its backfills on predictions and how good they were by size.
void AddPredictions(report::HtmlReport& page, const Workload& workload, const std::vector<ReplayResult>& results) {
  for (const ReplayResult& r : results) {
    if (!r.prediction.enabled) continue;
    page.AddHeading("Runtime prediction: " + r.scheduler);
    page.AddParagraph(std::to_string(r.prediction.backfilled) + " gangs started on nodes reserved for another on the " +
                      Fixed(r.prediction.quantile) + " quantile of their predicted runtime; " +
                      std::to_string(r.prediction.overruns) + " overstayed and were ended, losing " +
                      Fixed(r.prediction.overrun_lost_gpu_seconds / 3600, 1) + " GPU-hours of work.");
    std::vector<std::vector<std::string>> rows;
    for (const PredictionAccuracy& a : AccuracyBySize(workload, r)) {
      rows.push_back({a.label, std::to_string(a.ended), std::to_string(a.predicted), Fixed(100 * a.within_quantile, 1),
                      Fixed(a.median_abs_error_h), Fixed(a.median_ratio)});
    }
    page.AddTable({"job GPUs", "jobs ended", "predicted at arrival", "% within the quantile",
                   "median |error| of the median, h", "median predicted / actual"},
                  rows);
  }
}

std::string Chart(const std::string& title, const std::string& y_label, std::vector<report::Series> series,
                  std::optional<double> y_max = std::nullopt) {
  report::LineChart chart;
  chart.title = title;
  chart.x_label = "simulated day";
  chart.y_label = y_label;
  chart.series = std::move(series);
  chart.y_min = 0;
  chart.y_max = y_max;
  return report::RenderLineChart(chart);
}

}  // namespace

std::string RenderTimeReplayReport(const Workload& workload, const std::vector<ReplayResult>& results,
                                   const std::vector<SchedulerFigures>& figures,
                                   const std::vector<std::string>& setup_lines) {
  report::HtmlReport page("gangplank time replay: Philly trace");
  page.AddHeading("Setup");
  for (const std::string& line : setup_lines) page.AddParagraph(line);

  page.AddHeading("Summary");
  std::vector<std::vector<std::string>> rows;
  for (const SchedulerFigures& f : figures) {
    rows.push_back({f.scheduler, std::to_string(f.started) + " / " + std::to_string(f.jobs),
                    std::to_string(f.never_started) +
                        (f.stuck_jobs_holding_gpus > 0
                             ? " (" + std::to_string(f.stuck_jobs_holding_gpus) + " deadlocked holding " +
                                   std::to_string(f.stuck_held_gpus) + " GPUs)"
                             : ""),
                    Hours(f.jct.mean), Hours(f.jct.p50), Hours(f.jct.p99), Hours(f.delay.mean), Hours(f.delay.p50),
                    Hours(f.delay.p99), Hours(f.gang_delay.mean), Hours(f.gang_delay.p99),
                    Fixed(100 * f.utilisation, 1) + "%", Fixed(100 * f.occupancy, 1) + "%",
                    Fixed(f.held_incomplete_gpu_seconds / 3600, 1), Fixed(f.jain_mean, 3),
                    Fixed(100 * f.multi_pod_jobs_in_one_rack, 1) + "%", Fixed(f.wall_seconds, 2)});
  }
  page.AddTable({"scheduler", "jobs started", "never started", "JCT mean h", "JCT p50 h", "JCT p99 h", "delay mean h",
                 "delay p50 h", "delay p99 h", "gang delay mean h", "gang delay p99 h", "utilisation",
                 "occupancy (incl. held)", "GPU-hours held by incomplete gangs", "Jain (mean)",
                 "multi-node jobs in one rack", "wall s"},
                rows);
  page.AddParagraph(
      "Utilisation counts GPUs of running jobs over the arrival window; occupancy adds GPUs held by pods of jobs "
      "that have not started (incomplete gangs). Delay is start minus arrival, where a job starts once every pod is "
      "placed; gang delay covers jobs of more than one pod. Jain's index is computed at each sample over queues with "
      "a positive fair share on x = GPUs held / fair share, then averaged over samples.");

  page.AddHeading("Preemption and queueing delay by job size");
  std::vector<std::string> size_header = {"scheduler", "preemptions", "jobs preempted", "GPU-hours of lost work"};
  for (const SizeBucket& b : SizeBuckets()) size_header.push_back("delay mean h, " + b.label + " GPUs");
  std::vector<std::vector<std::string>> size_rows;
  for (const SchedulerFigures& f : figures) {
    std::vector<std::string> row = {f.scheduler, std::to_string(f.preemptions), std::to_string(f.preempted_jobs),
                                    Fixed(f.lost_gpu_seconds / 3600, 1)};
    for (const SizeBucket& b : f.by_size) row.push_back(b.delay.count > 0 ? Hours(b.delay.mean) : "-");
    size_rows.push_back(std::move(row));
  }
  page.AddTable(size_header, size_rows);
  page.AddParagraph(
      "Reclaim (gangplank) evicts whole gangs of queues above their fair share for a gang of a queue below its share "
      "that has waited; lost work is GPUs times the time since the victim's last checkpoint under the replay's "
      "checkpoint model. Delay by size uses each job's first start, so the large gangs' wait is visible.");
  AddPredictions(page, workload, results);

  const double capacity = results.empty() ? 0 : results.front().total_gpus;
  std::vector<report::Series> busy, held, waiting, jain, whole;
  for (const ReplayResult& r : results) {
    busy.push_back(SeriesOf(r, [](const ReplaySample& s) { return s.running_gpus; }, r.scheduler));
    held.push_back(SeriesOf(r, [](const ReplaySample& s) { return s.held_incomplete; }, r.scheduler));
    waiting.push_back(SeriesOf(r, [](const ReplaySample& s) { return s.waiting_jobs; }, r.scheduler));
    jain.push_back(SeriesOf(r, [](const ReplaySample& s) { return s.jain < 0 ? 1.0 : s.jain; }, r.scheduler));
    whole.push_back(SeriesOf(r, [](const ReplaySample& s) { return s.free_whole_nodes; }, r.scheduler));
  }
  if (!results.empty()) {
    busy.push_back(SeriesOf(results.front(), [capacity](const ReplaySample&) { return capacity; }, "capacity", true));
  }
  page.AddHeading("Utilisation over time");
  page.AddRawSvg(Chart("GPUs running jobs", "GPUs", busy));
  page.AddHeading("GPUs held by incomplete gangs");
  page.AddParagraph("Pods of a multi-pod job placed before the whole job could start. All-or-nothing schedulers "
                    "never hold any.");
  page.AddRawSvg(Chart("GPUs held by incomplete gangs", "GPUs", held));
  page.AddHeading("Waiting jobs");
  page.AddRawSvg(Chart("Jobs waiting to start", "jobs", waiting));
  page.AddHeading("Largest gang placeable now");
  page.AddParagraph("Fully free nodes in the pool: the largest gang of whole-node pods that could start at that "
                    "moment. Spreading small pods (kube-like) leaves fewer whole nodes than packing them.");
  page.AddRawSvg(Chart("Fully free nodes", "nodes", whole));
  page.AddHeading("Fairness over time");
  page.AddRawSvg(Chart("Jain's index of held / fair share across queues", "Jain index", jain, 1.0));

  page.AddHeading("Per-queue share against fair share");
  std::vector<std::string> header = {"queue", "weight", "guaranteed GPUs"};
  for (const SchedulerFigures& f : figures) {
    header.push_back(f.scheduler + " held/fair");
    header.push_back(f.scheduler + " delay p50 h");
  }
  std::vector<std::vector<std::string>> queue_rows;
  for (size_t q = 0; q < workload.queues.size(); ++q) {
    std::vector<std::string> row = {workload.queues[q].name, Fixed(workload.queues[q].weight, 0),
                                    Fixed(workload.queues[q].guaranteed_gpus, 1)};
    for (const SchedulerFigures& f : figures) {
      row.push_back(Fixed(f.queues[q].share_vs_fair, 2));
      row.push_back(Hours(f.queues[q].delay.p50));
    }
    queue_rows.push_back(std::move(row));
  }
  page.AddTable(header, queue_rows);
  // The busiest queues by total fair share, held (solid) against fair share (dashed), per scheduler.
  if (!results.empty()) {
    std::vector<double> weight(workload.queues.size(), 0);
    for (const ReplaySample& s : results.front().samples) {
      for (size_t q = 0; q < weight.size(); ++q) weight[q] += s.fair_share[q];
    }
    std::vector<size_t> order(weight.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return weight[a] > weight[b]; });
    order.resize(std::min<size_t>(order.size(), 4));
    for (const ReplayResult& r : results) {
      std::vector<report::Series> series;
      for (size_t q : order) {
        series.push_back(SeriesOf(r, [q](const ReplaySample& s) { return s.queue_held[q]; }, workload.queues[q].name));
        series.push_back(SeriesOf(r, [q](const ReplaySample& s) { return s.fair_share[q]; },
                                  workload.queues[q].name + " fair share", true));
      }
      page.AddRawSvg(Chart(r.scheduler + ": GPUs held by the four largest queues vs fair share", "GPUs", series));
    }
  }
  return page.Render();
}

}  // namespace gangplank::simulator

#include "simulator/time_replay/replay_metrics.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <numeric>
#include <sstream>
#include <stdexcept>

#include "simulator/time_replay/weekly_jain.h"

namespace gangplank::simulator {
namespace {

constexpr double kDay = 24 * 3600.0;
constexpr double kWeek = 7 * kDay;

std::string Num(double v) {
  if (!std::isfinite(v)) return "null";
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.6g", v);
  return buffer;
}

std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buffer[8];
      std::snprintf(buffer, sizeof(buffer), "\\u%04x", c);
      out += buffer;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string JsonDistribution(const DurationStats& d) {
  return "{\"count\": " + std::to_string(d.count) + ", \"mean\": " + Num(d.mean) + ", \"p50\": " + Num(d.p50) +
         ", \"p99\": " + Num(d.p99) + ", \"max\": " + Num(d.max) + "}";
}

std::string BurstQueue(const Workload& workload, const IdleBurst& burst) {
  return burst.queue >= 0 ? workload.queues[burst.queue].name : "";
}

std::ofstream Open(const std::string& path) {
  std::ofstream out(path);
  if (!out) throw std::runtime_error("cannot write " + path);
  return out;
}

}  // namespace

DurationStats SummarizeDurations(std::vector<double> values) {
  DurationStats d;
  d.count = static_cast<int>(values.size());
  if (values.empty()) return d;
  std::sort(values.begin(), values.end());
  d.mean = std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
  auto rank = [&](double p) {
    const size_t k = static_cast<size_t>(std::ceil(p * static_cast<double>(values.size())));
    return values[std::min(values.size() - 1, k == 0 ? 0 : k - 1)];
  };
  d.p50 = rank(0.50);
  d.p95 = rank(0.95);
  d.p99 = rank(0.99);
  d.max = values.back();
  return d;
}

std::vector<SizeBucket> SizeBuckets() {
  return {{"1", 1, 1, {}, 0},       {"2-8", 2, 8, {}, 0},   {"9-16", 9, 16, {}, 0},
          {"17-24", 17, 24, {}, 0}, {"25-32", 25, 32, {}, 0}, {">32", 33, 1 << 30, {}, 0}};
}

SchedulerFigures ComputeFigures(const Workload& workload, const ReplayResult& result) {
  SchedulerFigures f;
  f.by_size = SizeBuckets();
  std::vector<std::vector<double>> size_delay(f.by_size.size());
  auto bucket_of = [&](int gpus) {
    for (size_t b = 0; b < f.by_size.size(); ++b) {
      if (gpus >= f.by_size[b].min_gpus && gpus <= f.by_size[b].max_gpus) return b;
    }
    return f.by_size.size() - 1;
  };
  f.scheduler = result.scheduler;
  f.jobs = static_cast<int>(workload.jobs.size());
  std::vector<double> jct, delay, gang_delay;
  std::vector<std::vector<double>> queue_delay(workload.queues.size());
  double racks = 0;
  int in_one_rack = 0;
  for (size_t i = 0; i < workload.jobs.size(); ++i) {
    const ReplayJob& job = workload.jobs[i];
    const JobOutcome& o = result.jobs[i];
    const size_t bucket = job.gpus > 0 ? bucket_of(job.gpus) : 0;
    ++f.by_size[bucket].jobs;
    f.preempted_jobs += o.preemptions > 0 ? 1 : 0;
    if (o.start < 0) continue;
    ++f.started;
    size_delay[bucket].push_back(o.start - job.arrival);
    delay.push_back(o.start - job.arrival);
    queue_delay[job.queue].push_back(o.start - job.arrival);
    if (job.pods.size() > 1) {
      gang_delay.push_back(o.start - job.arrival);
      ++f.multi_pod_jobs;
      racks += o.racks;
      in_one_rack += o.racks == 1 ? 1 : 0;
    }
    if (o.end >= 0) {
      ++f.finished;
      jct.push_back(o.end - job.arrival);
    }
  }
  f.never_started = result.never_started;
  f.stuck_jobs_holding_gpus = result.stuck_jobs_holding_gpus;
  f.stuck_held_gpus = result.stuck_held_gpus;
  f.jct = SummarizeDurations(jct);
  f.delay = SummarizeDurations(delay);
  f.gang_delay = SummarizeDurations(gang_delay);
  const double capacity = static_cast<double>(result.total_gpus) * result.window_end;
  f.utilisation = capacity > 0 ? result.running_gpu_seconds / capacity : 0;
  f.occupancy = capacity > 0 ? result.occupied_gpu_seconds / capacity : 0;
  f.held_incomplete_gpu_seconds = result.held_incomplete_gpu_seconds;
  f.preemptions = result.preemptions;
  f.lost_gpu_seconds = result.lost_gpu_seconds;
  for (size_t b = 0; b < f.by_size.size(); ++b) f.by_size[b].delay = SummarizeDurations(size_delay[b]);
  f.multi_pod_jobs_in_one_rack = f.multi_pod_jobs > 0 ? static_cast<double>(in_one_rack) / f.multi_pod_jobs : 0;
  f.mean_racks_per_multi_pod_job = f.multi_pod_jobs > 0 ? racks / f.multi_pod_jobs : 0;
  f.makespan_days = result.makespan / 86400;
  f.wall_seconds = result.wall_seconds;

  double jain_sum = 0;
  int jain_n = 0;
  std::vector<double> held(workload.queues.size(), 0), fair(workload.queues.size(), 0);
  std::vector<int> counted(workload.queues.size(), 0);
  for (const ReplaySample& s : result.samples) {
    if (s.jain >= 0) {
      jain_sum += s.jain;
      ++jain_n;
    }
    for (size_t q = 0; q < workload.queues.size(); ++q) {
      if (!(s.fair_share[q] > 0)) continue;
      held[q] += s.queue_held[q];
      fair[q] += s.fair_share[q];
      ++counted[q];
    }
  }
  f.jain_mean = jain_n > 0 ? jain_sum / jain_n : 1;
  f.jain_week_mean = WindowedJain(result.samples, kWeek);
  f.idle_burst = FindIdleBurst(workload, kDay, kDay);
  f.idle_burst_wait = MeanBurstWait(workload, result, f.idle_burst);
  for (size_t q = 0; q < workload.queues.size(); ++q) {
    QueueFigures qf;
    qf.name = workload.queues[q].name;
    qf.mean_held = counted[q] > 0 ? held[q] / counted[q] : 0;
    qf.mean_fair = counted[q] > 0 ? fair[q] / counted[q] : 0;
    qf.share_vs_fair = fair[q] > 0 ? held[q] / fair[q] : 0;
    qf.delay = SummarizeDurations(queue_delay[q]);
    f.queues.push_back(qf);
  }
  return f;
}

void WriteMetrics(const std::string& out_dir, const Workload& workload, const std::vector<ReplayResult>& results,
                  const std::vector<SchedulerFigures>& figures, const std::vector<std::string>& notes) {
  {
    std::ofstream csv = Open(out_dir + "/summary.csv");
    csv << "scheduler,jobs,started,finished,never_started,stuck_jobs_holding_gpus,stuck_held_gpus,"
           "jct_mean_s,jct_p50_s,jct_p99_s,delay_mean_s,delay_p50_s,delay_p99_s,gang_delay_mean_s,gang_delay_p99_s,"
           "utilisation,occupancy,held_incomplete_gpu_seconds,jain_mean,multi_pod_jobs,multi_pod_in_one_rack,"
           "mean_racks_per_multi_pod_job,makespan_days,wall_seconds,preemptions,preempted_jobs,lost_gpu_seconds,"
           "jain_week_mean,idle_burst_queue,idle_burst_jobs,idle_burst_wait_mean_s";
    for (const SizeBucket& b : SizeBuckets()) csv << ",delay_mean_s_gpus_" << b.label;
    csv << '\n';
    for (const SchedulerFigures& f : figures) {
      csv << f.scheduler << ',' << f.jobs << ',' << f.started << ',' << f.finished << ',' << f.never_started << ','
          << f.stuck_jobs_holding_gpus << ',' << f.stuck_held_gpus << ',' << Num(f.jct.mean) << ',' << Num(f.jct.p50)
          << ',' << Num(f.jct.p99) << ',' << Num(f.delay.mean) << ',' << Num(f.delay.p50) << ',' << Num(f.delay.p99)
          << ',' << Num(f.gang_delay.mean) << ',' << Num(f.gang_delay.p99) << ',' << Num(f.utilisation) << ','
          << Num(f.occupancy) << ',' << Num(f.held_incomplete_gpu_seconds) << ',' << Num(f.jain_mean) << ','
          << f.multi_pod_jobs << ',' << Num(f.multi_pod_jobs_in_one_rack) << ','
          << Num(f.mean_racks_per_multi_pod_job) << ',' << Num(f.makespan_days) << ',' << Num(f.wall_seconds) << ','
          << f.preemptions << ',' << f.preempted_jobs << ',' << Num(f.lost_gpu_seconds) << ','
          << Num(f.jain_week_mean) << ',' << BurstQueue(workload, f.idle_burst) << ',' << f.idle_burst.jobs.size()
          << ',' << Num(f.idle_burst_wait);
      for (const SizeBucket& b : f.by_size) csv << ',' << (b.delay.count > 0 ? Num(b.delay.mean) : "");
      csv << '\n';
    }
  }
  {
    std::ofstream json = Open(out_dir + "/summary.json");
    json << "{\n  \"notes\": [";
    for (size_t i = 0; i < notes.size(); ++i) json << (i ? ", " : "") << JsonString(notes[i]);
    json << "],\n  \"queues\": [";
    for (size_t q = 0; q < workload.queues.size(); ++q) {
      json << (q ? ", " : "") << "{\"name\": " << JsonString(workload.queues[q].name)
           << ", \"weight\": " << Num(workload.queues[q].weight)
           << ", \"guaranteed_gpus\": " << Num(workload.queues[q].guaranteed_gpus) << "}";
    }
    json << "],\n  \"schedulers\": [\n";
    for (size_t i = 0; i < figures.size(); ++i) {
      const SchedulerFigures& f = figures[i];
      json << "    {\"scheduler\": " << JsonString(f.scheduler) << ", \"jobs\": " << f.jobs
           << ", \"started\": " << f.started << ", \"finished\": " << f.finished
           << ", \"never_started\": " << f.never_started
           << ", \"stuck_jobs_holding_gpus\": " << f.stuck_jobs_holding_gpus
           << ", \"stuck_held_gpus\": " << f.stuck_held_gpus << ",\n     \"jct_seconds\": " << JsonDistribution(f.jct)
           << ",\n     \"queueing_delay_seconds\": " << JsonDistribution(f.delay)
           << ",\n     \"gang_queueing_delay_seconds\": " << JsonDistribution(f.gang_delay)
           << ",\n     \"utilisation\": " << Num(f.utilisation) << ", \"occupancy\": " << Num(f.occupancy)
           << ", \"held_incomplete_gpu_seconds\": " << Num(f.held_incomplete_gpu_seconds)
           << ", \"jain_mean\": " << Num(f.jain_mean) << ", \"multi_pod_jobs\": " << f.multi_pod_jobs
           << ", \"multi_pod_jobs_in_one_rack\": " << Num(f.multi_pod_jobs_in_one_rack)
           << ", \"mean_racks_per_multi_pod_job\": " << Num(f.mean_racks_per_multi_pod_job)
           << ", \"makespan_days\": " << Num(f.makespan_days) << ", \"wall_seconds\": " << Num(f.wall_seconds)
           << ", \"preemptions\": " << f.preemptions << ", \"preempted_jobs\": " << f.preempted_jobs
           << ", \"lost_gpu_seconds\": " << Num(f.lost_gpu_seconds) << ", \"jain_week_mean\": " << Num(f.jain_week_mean)
           << ",\n     \"idle_burst\": {\"queue\": " << JsonString(BurstQueue(workload, f.idle_burst))
           << ", \"start_s\": " << Num(f.idle_burst.start) << ", \"jobs\": " << f.idle_burst.jobs.size()
           << ", \"gpus\": " << f.idle_burst.gpus << ", \"wait_mean_s\": " << Num(f.idle_burst_wait) << "}"
           << ",\n     \"queueing_delay_by_gpus\": [";
      for (size_t b = 0; b < f.by_size.size(); ++b) {
        json << (b ? ", " : "") << "{\"gpus\": " << JsonString(f.by_size[b].label) << ", \"jobs\": " << f.by_size[b].jobs
             << ", \"delay_seconds\": " << JsonDistribution(f.by_size[b].delay) << "}";
      }
      json << "],\n     \"queues\": [";
      for (size_t q = 0; q < f.queues.size(); ++q) {
        const QueueFigures& qf = f.queues[q];
        json << (q ? ", " : "") << "{\"name\": " << JsonString(qf.name) << ", \"mean_held_gpus\": " << Num(qf.mean_held)
             << ", \"mean_fair_share_gpus\": " << Num(qf.mean_fair) << ", \"share_vs_fair\": " << Num(qf.share_vs_fair)
             << ", \"queueing_delay_seconds\": " << JsonDistribution(qf.delay) << "}";
      }
      json << "]}" << (i + 1 < figures.size() ? "," : "") << "\n";
    }
    json << "  ]\n}\n";
  }
  for (const ReplayResult& r : results) {
    std::ofstream jobs = Open(out_dir + "/jobs_" + r.scheduler + ".csv");
    jobs << "job,trace_row,queue,gpus,pods,arrival_s,start_s,end_s,queueing_delay_s,jct_s,racks,preemptions,"
            "lost_gpu_seconds\n";
    for (size_t i = 0; i < workload.jobs.size(); ++i) {
      const ReplayJob& job = workload.jobs[i];
      const JobOutcome& o = r.jobs[i];
      jobs << job.id << ',' << job.trace_row << ',' << workload.queues[job.queue].name << ',' << job.gpus << ','
           << job.pods.size() << ',' << Num(job.arrival) << ',' << (o.start >= 0 ? Num(o.start) : "") << ','
           << (o.end >= 0 ? Num(o.end) : "") << ',' << (o.start >= 0 ? Num(o.start - job.arrival) : "") << ','
           << (o.end >= 0 ? Num(o.end - job.arrival) : "") << ',' << o.racks << ',' << o.preemptions << ','
           << Num(o.lost_gpu_seconds) << '\n';
    }
    std::ofstream series = Open(out_dir + "/timeseries_" + r.scheduler + ".csv");
    series << "time_s,running_gpus,held_by_incomplete_gangs,waiting_jobs,jain,free_whole_nodes,largest_rack_gang_gpus";
    for (const ReplayQueue& q : workload.queues) series << ",held_" << q.name << ",fair_" << q.name;
    series << '\n';
    for (const ReplaySample& s : r.samples) {
      series << Num(s.time) << ',' << s.running_gpus << ',' << s.held_incomplete << ',' << s.waiting_jobs << ','
             << (s.jain >= 0 ? Num(s.jain) : "") << ',' << s.free_whole_nodes << ',' << s.largest_rack_gang_gpus;
      for (size_t q = 0; q < workload.queues.size(); ++q) series << ',' << s.queue_held[q] << ',' << Num(s.fair_share[q]);
      series << '\n';
    }
  }
}

}  // namespace gangplank::simulator

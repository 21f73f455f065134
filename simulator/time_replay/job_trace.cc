#include "simulator/time_replay/job_trace.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>

#include "simulator/csv_table.h"

namespace gangplank::simulator {
namespace {

bool ReadDigits(std::string_view text, size_t pos, size_t count, int& value) {
  if (pos + count > text.size()) return false;
  for (size_t i = pos; i < pos + count; ++i) {
    if (text[i] < '0' || text[i] > '9') return false;
  }
  std::from_chars(text.data() + pos, text.data() + pos + count, value);
  return true;
}

// Days from 1970-01-01 to a proleptic Gregorian date (H. Hinnant's civil-days algorithm).
std::int64_t DaysFromCivil(int y, int m, int d) {
  y -= m <= 2 ? 1 : 0;
  const int era = (y >= 0 ? y : y - 399) / 400;
  const int yoe = y - era * 400;
  const int doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return static_cast<std::int64_t>(era) * 146097 + doe - 719468;
}

bool IsLeap(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

JobTrace Build(const CsvTable& jobs, const CsvTable& vcs, std::int64_t max_jobs) {
  JobTrace trace;
  std::map<std::string, int, std::less<>> queue_index;
  const size_t vc_col = vcs.Column("vc");
  const size_t nodes_col = vcs.Column("node num");
  for (size_t r = 0; r < vcs.rows(); ++r) {
    std::string name(vcs.Text(r, vc_col));
    if (name.empty()) throw InputError(vcs.Where(r, vc_col) + ": empty virtual-cluster name");
    const std::int64_t nodes = vcs.Int(r, nodes_col);
    if (nodes < 0 || nodes > 1000000) {
      throw InputError(vcs.Where(r, nodes_col) + ": node count " + std::to_string(nodes) + " out of range 0..1000000");
    }
    if (queue_index.count(name)) throw InputError(vcs.Where(r, vc_col) + ": virtual cluster '" + name + "' listed twice");
    queue_index.emplace(name, static_cast<int>(trace.queues.size()));
    trace.queues.push_back(TraceQueue{name, static_cast<int>(nodes), true});
    trace.total_vc_nodes += static_cast<int>(nodes);
  }

  const size_t ts_col = jobs.Column("timestamp");
  const size_t dur_col = jobs.Column("duration");
  const size_t gpu_col = jobs.Column("num_gpus");
  const size_t cluster_col = jobs.Column("cluster");
  std::int64_t first = 0;
  std::map<std::string, int> missing_jobs;
  size_t rows = jobs.rows();
  if (max_jobs > 0) rows = std::min(rows, static_cast<size_t>(max_jobs));
  for (size_t r = 0; r < rows; ++r) {
    std::int64_t when = 0;
    if (!ParseTimestamp(jobs.Text(r, ts_col), when)) {
      throw InputError(jobs.Where(r, ts_col) + ": expected a timestamp 'YYYY-MM-DD HH:MM:SS', got '" +
                       std::string(jobs.Text(r, ts_col)) + "'");
    }
    if (r == 0) first = when;
    const double duration = jobs.Double(r, dur_col);
    if (!std::isfinite(duration) || duration < 0) {
      throw InputError(jobs.Where(r, dur_col) + ": duration must be a finite number of seconds >= 0, got '" +
                       std::string(jobs.Text(r, dur_col)) + "'");
    }
    const std::int64_t gpus = jobs.Int(r, gpu_col);
    if (gpus < 1 || gpus > 100000) {
      throw InputError(jobs.Where(r, gpu_col) + ": num_gpus must be 1..100000, got " + std::to_string(gpus));
    }
    std::string vc(jobs.Text(r, cluster_col));
    if (vc.empty()) throw InputError(jobs.Where(r, cluster_col) + ": empty virtual-cluster name");
    auto it = queue_index.find(vc);
    if (it == queue_index.end()) {
      it = queue_index.emplace(vc, static_cast<int>(trace.queues.size())).first;
      trace.queues.push_back(TraceQueue{vc, 0, false});
    }
    if (!trace.queues[it->second].in_vc_file) ++missing_jobs[vc];
    TraceJob job;
    job.id = static_cast<int>(r);
    job.arrival = static_cast<double>(when - first);
    job.duration = duration;
    job.gpus = static_cast<int>(gpus);
    job.queue = it->second;
    trace.jobs.push_back(job);
  }
  if (trace.jobs.empty()) throw InputError(jobs.source() + ":2:1: the trace has no jobs");
  // Arrival order is what the replay needs; the trace is sorted already, but do not rely on it.
  std::stable_sort(trace.jobs.begin(), trace.jobs.end(),
                   [](const TraceJob& a, const TraceJob& b) { return a.arrival < b.arrival; });
  const double earliest = trace.jobs.front().arrival;
  for (TraceJob& job : trace.jobs) job.arrival -= earliest;
  for (const auto& [vc, count] : missing_jobs) {
    trace.notes.push_back("virtual cluster " + vc + " has " + std::to_string(count) + " jobs but no row in " +
                          vcs.source() + ": it is a queue with guarantee 0 and weight 1");
  }
  return trace;
}

}  // namespace

bool ParseTimestamp(std::string_view text, std::int64_t& seconds) {
  // Exactly "YYYY-MM-DD HH:MM:SS".
  if (text.size() != 19 || text[4] != '-' || text[7] != '-' || text[10] != ' ' || text[13] != ':' || text[16] != ':') {
    return false;
  }
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0;
  if (!ReadDigits(text, 0, 4, y) || !ReadDigits(text, 5, 2, mo) || !ReadDigits(text, 8, 2, d) ||
      !ReadDigits(text, 11, 2, h) || !ReadDigits(text, 14, 2, mi) || !ReadDigits(text, 17, 2, s)) {
    return false;
  }
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (mo < 1 || mo > 12 || d < 1) return false;
  const int month_days = kDays[mo - 1] + (mo == 2 && IsLeap(y) ? 1 : 0);
  if (d > month_days || h > 23 || mi > 59 || s > 59) return false;
  seconds = DaysFromCivil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s;
  return true;
}

JobTrace LoadPhillyTrace(const std::string& jobs_path, const std::string& vcs_path, std::int64_t max_jobs) {
  CsvTable vcs = CsvTable::Load(vcs_path);
  CsvTable jobs = CsvTable::Load(jobs_path);
  return Build(jobs, vcs, max_jobs);
}

JobTrace ParsePhillyTrace(std::string_view jobs_csv, const std::string& jobs_name, std::string_view vcs_csv,
                          const std::string& vcs_name, std::int64_t max_jobs) {
  CsvTable vcs = CsvTable::Parse(vcs_csv, vcs_name);
  CsvTable jobs = CsvTable::Parse(jobs_csv, jobs_name);
  return Build(jobs, vcs, max_jobs);
}

}  // namespace gangplank::simulator

#include "operator/utilization/usage_report.h"

#include <cmath>
#include <cstdio>
#include <regex>
#include <sstream>

namespace gangplank::op {
namespace {

using Key = std::pair<std::string, std::string>;

std::string Label(const promql::Labels& labels, const char* name) {
  const auto it = labels.find(name);
  return it == labels.end() ? std::string() : it->second;
}

std::string Number(double v, const char* format = "%.1f") {
  if (v < 0) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string Busy(double allocated, double busy) {
  if (busy < 0 || allocated <= 0) return "-";
  return Number(100 * busy / allocated, "%.0f%%");
}

// A CSV field: quoted when it holds a comma, a quote or a line break.
std::string Field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

void Line(std::ostringstream& out, const std::string& queue, const std::string& ns, double allocated, double busy) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "%-24s %-24s %14s %14s %6s\n", queue.c_str(), ns.c_str(), Number(allocated).c_str(),
                Number(busy).c_str(), Busy(allocated, busy).c_str());
  out << buf;
}

}  // namespace

bool ValidSpan(const std::string& since) {
  static const std::regex span("^[1-9][0-9]{0,6}[smhdw]$");
  return std::regex_match(since, span);
}

std::string UsageQuery(const std::string& since, const std::string& pool, bool busy) {
  const std::string metric = busy ? "gangplank_operator_busy_gpu_seconds_total" : "gangplank_operator_gpu_seconds_total";
  const std::string selector = pool.empty() ? "" : "{pool=\"" + pool + "\"}";
  return "sum by (queue, namespace) (increase(" + metric + selector + "[" + since + "])) / 3600";
}

std::vector<UsageRow> UsageRows(const promql::InstantVector& allocated, const promql::InstantVector& busy) {
  std::map<Key, UsageRow> rows;
  for (const promql::Sample& s : allocated) {
    UsageRow& r = rows[{Label(s.labels, "queue"), Label(s.labels, "namespace")}];
    r.queue = Label(s.labels, "queue");
    r.namespace_ = Label(s.labels, "namespace");
    r.allocated_gpu_hours = std::isfinite(s.value) ? s.value : 0;
    r.busy_gpu_hours = -1;
  }
  for (const promql::Sample& s : busy) {
    const auto it = rows.find({Label(s.labels, "queue"), Label(s.labels, "namespace")});
    if (it != rows.end() && std::isfinite(s.value)) it->second.busy_gpu_hours = s.value;
  }
  std::vector<UsageRow> out;
  for (auto& [key, row] : rows) out.push_back(std::move(row));
  return out;
}

std::string UsageTable(const std::vector<UsageRow>& rows, const std::string& since) {
  std::ostringstream out;
  out << "GPU-hours over the last " << since << " (busy: weighted by measured GPU utilization)\n";
  char header[256];
  std::snprintf(header, sizeof header, "%-24s %-24s %14s %14s %6s\n", "QUEUE", "NAMESPACE", "ALLOCATED", "BUSY", "BUSY%");
  out << header;
  double total_allocated = 0;
  double total_busy = 0;
  bool busy_known = false;
  for (const UsageRow& r : rows) {
    Line(out, r.queue, r.namespace_, r.allocated_gpu_hours, r.busy_gpu_hours);
    total_allocated += r.allocated_gpu_hours;
    if (r.busy_gpu_hours < 0) continue;
    total_busy += r.busy_gpu_hours;
    busy_known = true;
  }
  Line(out, "TOTAL", "", total_allocated, busy_known ? total_busy : -1);
  return out.str();
}

std::string UsageCsv(const std::vector<UsageRow>& rows) {
  std::ostringstream out;
  out << "queue,namespace,allocated_gpu_hours,busy_gpu_hours\n";
  for (const UsageRow& r : rows) {
    out << Field(r.queue) << ',' << Field(r.namespace_) << ',' << Number(r.allocated_gpu_hours, "%.3f") << ','
        << (r.busy_gpu_hours < 0 ? std::string() : Number(r.busy_gpu_hours, "%.3f")) << '\n';
  }
  return out.str();
}

}  // namespace gangplank::op

// The chargeback table of `gangplank-operator usage`: GPU-hours allocated and GPU-hours actually busy
// per queue and namespace over a past span, from the operator's own counters as Prometheus keeps them
// (gangplank_operator_gpu_seconds_total, gangplank_operator_busy_gpu_seconds_total). Pure: the queries
// are built and the answers turned into rows and text here; the command does the HTTP.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "promql/samples.h"

namespace gangplank::op {

struct UsageRow {
  std::string queue;
  std::string namespace_;
  double allocated_gpu_hours = 0;
  double busy_gpu_hours = 0;  // Negative: never measured (no utilization read in the span).
};

// Whether `since` is a Prometheus duration gangplank takes: a whole number and one unit of s, m, h, d, w.
bool ValidSpan(const std::string& since);
// PromQL for the GPU-hours of each (queue, namespace) over `since`, optionally in one pool. `busy`: the
// utilization-weighted counter.
std::string UsageQuery(const std::string& since, const std::string& pool, bool busy);
// Rows by queue, then namespace, from the answers to the two queries.
std::vector<UsageRow> UsageRows(const promql::InstantVector& allocated, const promql::InstantVector& busy);
// An aligned table with a total per queue and a grand total, or CSV (header, one line per row).
std::string UsageTable(const std::vector<UsageRow>& rows, const std::string& since);
std::string UsageCsv(const std::vector<UsageRow>& rows);

}  // namespace gangplank::op

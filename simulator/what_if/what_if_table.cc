#include "simulator/what_if/what_if_table.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "simulator/time_replay/replay_setup.h"

namespace gangplank::simulator {
namespace {

struct Figure {
  const char* name;
  int digits;
  double (*of)(const SchedulerFigures&);
};

constexpr double kHour = 3600;

// The figures compared, in the order printed (definitions: replay_metrics.h).
const std::vector<Figure>& Figures() {
  static const std::vector<Figure> kFigures = {
      {"jobs started", 0, [](const SchedulerFigures& f) { return double(f.started); }},
      {"jobs never started", 0, [](const SchedulerFigures& f) { return double(f.never_started); }},
      {"mean JCT (h)", 2, [](const SchedulerFigures& f) { return f.jct.mean / kHour; }},
      {"p99 JCT (h)", 2, [](const SchedulerFigures& f) { return f.jct.p99 / kHour; }},
      {"mean queueing delay (h)", 2, [](const SchedulerFigures& f) { return f.delay.mean / kHour; }},
      {"p99 queueing delay (h)", 2, [](const SchedulerFigures& f) { return f.delay.p99 / kHour; }},
      {"mean multi-pod queueing delay (h)", 2, [](const SchedulerFigures& f) { return f.gang_delay.mean / kHour; }},
      {"GPU utilisation (%)", 1, [](const SchedulerFigures& f) { return 100 * f.utilisation; }},
      {"Jain fairness (mean)", 3, [](const SchedulerFigures& f) { return f.jain_mean; }},
      {"Jain fairness over weeks", 3, [](const SchedulerFigures& f) { return f.jain_week_mean; }},
      {"preemptions (gangs evicted)", 0, [](const SchedulerFigures& f) { return double(f.preemptions); }},
      {"jobs preempted", 0, [](const SchedulerFigures& f) { return double(f.preempted_jobs); }},
      {"lost GPU-hours", 1, [](const SchedulerFigures& f) { return f.lost_gpu_seconds / kHour; }},
  };
  return kFigures;
}

// A change with its sign, "0" when it rounds to nothing at the row's precision.
std::string FormatChange(double change, int digits) {
  const std::string text = FormatFixed(std::fabs(change), digits);
  if (text.find_first_not_of("0.") == std::string::npos) return "0";
  return (change > 0 ? "+" : "-") + text;
}

// The cells of the table, header first: figure, baseline, then value and change per variant.
std::vector<std::vector<std::string>> Cells(const WhatIfTable& table) {
  std::vector<std::string> header = {"figure", table.runs[0]};
  for (size_t v = 1; v < table.runs.size(); ++v) {
    header.push_back(table.runs[v]);
    header.push_back(table.runs[v] + " change");
  }
  std::vector<std::vector<std::string>> cells = {header};
  for (const WhatIfRow& row : table.rows) {
    std::vector<std::string> line = {row.figure, FormatFixed(row.values[0], row.digits)};
    for (size_t v = 1; v < row.values.size(); ++v) {
      line.push_back(FormatFixed(row.values[v], row.digits));
      line.push_back(FormatChange(row.Difference(v), row.digits));
    }
    cells.push_back(line);
  }
  return cells;
}

std::string CsvField(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

}  // namespace

const WhatIfRow& WhatIfTable::Row(const std::string& figure) const {
  for (const WhatIfRow& row : rows) {
    if (row.figure == figure) return row;
  }
  throw std::out_of_range("no figure '" + figure + "' in the what-if table");
}

WhatIfTable BuildWhatIfTable(const std::vector<std::string>& labels, const std::vector<SchedulerFigures>& figures) {
  if (figures.size() != labels.size() + 1) {
    throw std::invalid_argument("a what-if needs the baseline's figures and one run's per label");
  }
  WhatIfTable table;
  table.runs.push_back("baseline");
  table.runs.insert(table.runs.end(), labels.begin(), labels.end());
  for (const Figure& figure : Figures()) {
    WhatIfRow row{figure.name, figure.digits, {}};
    for (const SchedulerFigures& f : figures) row.values.push_back(figure.of(f));
    table.rows.push_back(row);
  }
  return table;
}

std::string RenderWhatIfText(const WhatIfTable& table) {
  const std::vector<std::vector<std::string>> cells = Cells(table);
  std::vector<size_t> width(cells[0].size(), 0);
  for (const auto& line : cells) {
    for (size_t c = 0; c < line.size(); ++c) width[c] = std::max(width[c], line[c].size());
  }
  std::string out;
  for (const auto& line : cells) {
    std::string text = line[0] + std::string(width[0] - line[0].size(), ' ');
    for (size_t c = 1; c < line.size(); ++c) text += "  " + std::string(width[c] - line[c].size(), ' ') + line[c];
    out += text + "\n";
  }
  return out;
}

std::string RenderWhatIfCsv(const WhatIfTable& table) {
  std::string out;
  for (const auto& line : Cells(table)) {
    for (size_t c = 0; c < line.size(); ++c) out += (c == 0 ? "" : ",") + CsvField(line[c]);
    out += "\n";
  }
  return out;
}

}  // namespace gangplank::simulator

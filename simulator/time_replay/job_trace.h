// A job trace with arrivals and durations, read from the Philly job table and its virtual-cluster file.
// Virtual clusters become queues: a VC's node count is its guaranteed share (scaled to the simulated
// cluster later). A VC that has jobs but no row in the VC file gets guarantee 0 and is reported.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gangplank::simulator {

struct TraceQueue {
  std::string name;
  int vc_nodes = 0;       // Node count from the VC file; 0 when the VC is missing there.
  bool in_vc_file = false;
};

struct TraceJob {
  int id = 0;             // Row order in the trace, 0-based.
  double arrival = 0;     // Seconds since the first job's submission.
  double duration = 0;    // Run time in seconds.
  int gpus = 0;
  int queue = 0;          // Index into JobTrace::queues.
};

struct JobTrace {
  std::vector<TraceQueue> queues;
  std::vector<TraceJob> jobs;      // Sorted by arrival, ties in trace order.
  int total_vc_nodes = 0;          // Sum of node counts in the VC file.
  std::vector<std::string> notes;  // Things a reader should know, e.g. VCs missing from the VC file.
};

// Seconds since 1970-01-01 00:00:00 (no time zone: the trace's clock) of "YYYY-MM-DD HH:MM:SS";
// returns false when the text is not such a time.
bool ParseTimestamp(std::string_view text, std::int64_t& seconds);

// Reads both files; throws InputError naming file:line:column for any malformed or senseless value.
// `max_jobs` > 0 keeps only the first jobs in trace order.
JobTrace LoadPhillyTrace(const std::string& jobs_path, const std::string& vcs_path, std::int64_t max_jobs = 0);

// The same from text already in memory (tests); names are used in messages.
JobTrace ParsePhillyTrace(std::string_view jobs_csv, const std::string& jobs_name, std::string_view vcs_csv,
                          const std::string& vcs_name, std::int64_t max_jobs = 0);

}  // namespace gangplank::simulator

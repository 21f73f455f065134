// The failure replay's summary for people: a markdown table, printed and pasted into the READMEs.
#pragma once

#include <string>
#include <vector>

#include "simulator/faults/policy_summary.h"

namespace gangplank::simulator {

// One row per policy: lost GPU-hours (mean ± sd over seeds), stranded, time to requeue and to run again p50/p99, JCT
// mean/p95, JCT of the jobs a fault stopped, jobs failed, interruptions, checkpointed restarts, unfinished jobs (means
// per seed).
std::string FormatFaultTable(const std::vector<PolicySummary>& summary);

}  // namespace gangplank::simulator

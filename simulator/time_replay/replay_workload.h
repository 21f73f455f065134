// The replay's view of a trace: jobs split into pods, and queues with weights and guaranteed GPUs
// scaled to the simulated cluster.
#pragma once

#include <string>
#include <vector>

#include "simulator/time_replay/job_trace.h"

namespace gangplank::simulator {

struct ReplayQueue {
  std::string name;
  double weight = 1;
  double guaranteed_gpus = 0;
};

struct ReplayJob {
  int id = 0;           // Index into Workload::jobs (arrival order).
  int trace_row = 0;    // Row in the trace file, 0-based after the header.
  int queue = 0;
  double arrival = 0;   // Simulated seconds.
  double duration = 0;
  int gpus = 0;
  std::vector<int> pods;  // GPUs per pod, largest first; sums to `gpus`.
};

struct Workload {
  std::vector<ReplayQueue> queues;
  std::vector<ReplayJob> jobs;  // In arrival order.
  // Checkpoint model (the trace has none): a running job saves its progress every this many seconds of
  // its current run; an evicted job keeps the saved progress and loses the rest. 0: jobs never
  // checkpoint, so an evicted job starts over.
  double checkpoint_seconds = 0;
  std::vector<std::string> notes;
};

// A job of `gpus` GPUs on nodes of `gpus_per_node`: one pod when it fits one node, otherwise as many
// whole-node pods as it fills plus one pod with the remainder (12 GPUs on 8-GPU nodes: 8 + 4). The
// remainder is not spread evenly because a whole-node pod never fragments a node.
std::vector<int> SplitIntoPods(int gpus, int gpus_per_node);

// Queues: a VC's weight is its node count and its guarantee is its share of the VC nodes times the
// simulated cluster's GPUs. A VC missing from the VC file gets weight 1 and guarantee 0.
// `time_scale` divides arrival times.
Workload MakeWorkload(const JobTrace& trace, int cluster_gpus, int gpus_per_node, double time_scale);

}  // namespace gangplank::simulator

#include "simulator/time_replay/replay_workload.h"

namespace gangplank::simulator {

std::vector<int> SplitIntoPods(int gpus, int gpus_per_node) {
  std::vector<int> pods;
  if (gpus <= 0 || gpus_per_node <= 0) return pods;
  for (int left = gpus; left > 0; left -= gpus_per_node) pods.push_back(left < gpus_per_node ? left : gpus_per_node);
  return pods;
}

Workload MakeWorkload(const JobTrace& trace, int cluster_gpus, int gpus_per_node, double time_scale) {
  Workload w;
  w.notes = trace.notes;
  for (const TraceQueue& q : trace.queues) {
    ReplayQueue rq;
    rq.name = q.name;
    rq.weight = q.in_vc_file && q.vc_nodes > 0 ? q.vc_nodes : 1;
    rq.guaranteed_gpus = trace.total_vc_nodes > 0
                             ? static_cast<double>(cluster_gpus) * q.vc_nodes / trace.total_vc_nodes
                             : 0;
    w.queues.push_back(rq);
  }
  const double scale = time_scale > 0 ? time_scale : 1;
  for (const TraceJob& t : trace.jobs) {
    ReplayJob job;
    job.id = static_cast<int>(w.jobs.size());
    job.trace_row = t.id;
    job.queue = t.queue;
    job.arrival = t.arrival / scale;
    job.duration = t.duration;
    job.gpus = t.gpus;
    job.pods = SplitIntoPods(t.gpus, gpus_per_node);
    w.jobs.push_back(std::move(job));
  }
  return w;
}

}  // namespace gangplank::simulator

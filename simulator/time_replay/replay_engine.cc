#include "simulator/time_replay/replay_engine.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <queue>

#include "engine/fairshare/fair_share.h"
#include "engine/gang/largest_gang.h"
#include "simulator/time_replay/weekly_jain.h"

namespace gangplank::simulator {
namespace {

std::vector<double> FairShares(const Workload& w, const ReplayScheduler& s) {
  std::vector<engine::ShareInput> inputs(w.queues.size());
  for (size_t q = 0; q < w.queues.size(); ++q) {
    inputs[q].weight = w.queues[q].weight;
    inputs[q].guaranteed = w.queues[q].guaranteed_gpus;
    inputs[q].demand = s.queue_held()[q] + s.queue_waiting()[q];
  }
  return engine::WaterFill(s.cluster().total_gpus(), inputs);
}

}  // namespace

double JainIndex(const std::vector<int>& held, const std::vector<double>& fair_share) {
  std::vector<double> ratios;
  for (size_t q = 0; q < held.size() && q < fair_share.size(); ++q) {
    if (fair_share[q] > 0) ratios.push_back(held[q] / fair_share[q]);
  }
  return JainOfRatios(ratios);
}

ReplayResult RunReplay(const Workload& workload, ReplayScheduler& scheduler, const ReplayConfig& config) {
  const auto wall_start = std::chrono::steady_clock::now();
  ReplayResult result;
  result.scheduler = std::string(scheduler.Name());
  result.total_gpus = scheduler.cluster().total_gpus();
  result.jobs.resize(workload.jobs.size());
  result.window_end = workload.jobs.empty() ? 0 : workload.jobs.back().arrival;

  using Completion = std::pair<double, int>;  // (time, job id); earliest first, then lower id.
  std::priority_queue<Completion, std::vector<Completion>, std::greater<>> completions;
  size_t next_arrival = 0;
  double previous = 0;
  double next_sample = 0;
  size_t next_progress = 1;
  std::vector<int> started;
  // Per job: running now, start of the current run, work left, and when the current run ends.
  std::vector<char> running(workload.jobs.size(), 0);
  std::vector<double> run_start(workload.jobs.size(), 0), expected_end(workload.jobs.size(), 0);
  std::vector<double> remaining(workload.jobs.size(), 0);
  for (size_t id = 0; id < workload.jobs.size(); ++id) remaining[id] = workload.jobs[id].duration;
  const double checkpoint = workload.checkpoint_seconds;
  double overrun_lost = 0;  // Of gangs ended for overstaying a predicted backfill.

  auto sample = [&](double time) {
    ReplaySample s;
    s.time = time;
    s.running_gpus = scheduler.running_gpus();
    s.held_incomplete = scheduler.held_by_incomplete();
    s.waiting_jobs = scheduler.waiting_jobs();
    s.queue_held = scheduler.queue_held();
    s.fair_share = FairShares(workload, scheduler);
    s.jain = JainIndex(s.queue_held, s.fair_share);
    const std::vector<engine::LargestGang> largest = engine::LargestPlaceableGangs(scheduler.cluster());
    s.free_whole_nodes = largest.front().free_nodes;
    s.largest_rack_gang_gpus = largest.back().free_gpus;
    result.samples.push_back(std::move(s));
  };

  double wakeup = std::numeric_limits<double>::infinity();  // Asked for by the scheduler (NextWakeup).
  while (next_arrival < workload.jobs.size() || !completions.empty() || std::isfinite(wakeup)) {
    double now = wakeup;
    if (!completions.empty()) now = std::min(now, completions.top().first);
    if (next_arrival < workload.jobs.size()) now = std::min(now, workload.jobs[next_arrival].arrival);

    // The state has been constant since `previous`.
    for (; next_sample < now; next_sample += config.sample_seconds) sample(next_sample);
    const double dt = now - previous;
    const double in_window = std::max(0.0, std::min(now, result.window_end) - previous);
    result.running_gpu_seconds += in_window * scheduler.running_gpus();
    result.occupied_gpu_seconds += in_window * (scheduler.running_gpus() + scheduler.held_by_incomplete());
    result.held_incomplete_gpu_seconds += dt * scheduler.held_by_incomplete();

    while (!completions.empty() && completions.top().first == now) {
      const int id = completions.top().second;
      completions.pop();
      if (!running[id] || expected_end[id] != now) continue;  // Evicted since this was scheduled.
      running[id] = 0;
      scheduler.Finish(workload.jobs[id]);
      result.jobs[id].end = now;
    }
    while (next_arrival < workload.jobs.size() && workload.jobs[next_arrival].arrival == now) {
      scheduler.Submit(workload.jobs[next_arrival++]);
    }
    started.clear();
    scheduler.Schedule(now, started);
    // Evictions first: a job evicted and started again within one Schedule call ran until now.
    for (const Eviction& eviction : scheduler.TakeEvicted()) {
      const int id = eviction.job;
      const double ran = now - run_start[id];
      // A checkpoint asked for (spot notice) keeps the progress made until it was asked for; writing
      // it made none.
      const double saved = eviction.checkpoint_at ? *eviction.checkpoint_at - run_start[id]
                           : checkpoint > 0       ? std::floor(ran / checkpoint) * checkpoint
                                                  : 0;
      remaining[id] -= saved;
      running[id] = 0;
      ++result.jobs[id].preemptions;
      ++result.preemptions;
      const double lost = (ran - saved) * workload.jobs[id].gpus;
      result.jobs[id].lost_gpu_seconds += lost;
      result.lost_gpu_seconds += lost;
      if (eviction.cause == EvictionCause::kOverrun) overrun_lost += lost;
      if (eviction.cause == EvictionCause::kMove) {
        ++result.moves;
        result.move_lost_gpu_seconds += lost;
      }
    }
    for (int id : started) {
      if (result.jobs[id].start < 0) result.jobs[id].start = now;
      result.jobs[id].racks = scheduler.RacksSpanned(id);
      running[id] = 1;
      run_start[id] = now;
      expected_end[id] = now + remaining[id];
      completions.emplace(expected_end[id], id);
    }
    previous = now;
    wakeup = scheduler.NextWakeup(now);

    if (config.on_progress && next_arrival * 100 >= next_progress * workload.jobs.size()) {
      config.on_progress(next_arrival, workload.jobs.size());
      next_progress = next_arrival * 100 / workload.jobs.size() + 1;
    }
  }
  sample(previous);
  result.makespan = previous;
  result.prediction = scheduler.Predictions();
  result.prediction.overrun_lost_gpu_seconds = overrun_lost;
  for (size_t id = 0; id < workload.jobs.size(); ++id) {
    if (result.jobs[id].start >= 0) continue;
    ++result.never_started;
    if (scheduler.PlacedPods(static_cast<int>(id)) > 0) ++result.stuck_jobs_holding_gpus;
  }
  result.stuck_held_gpus = scheduler.held_by_incomplete();
  result.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return result;
}

}  // namespace gangplank::simulator

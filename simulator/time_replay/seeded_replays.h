// One harness for the studies that replay every policy under random events drawn per seed (`faults`, `spot`):
// the trace is prepared once, each seed's events are drawn once and shared by every policy (so policies differ
// only in how they handle them), and the (seed, policy) replays run side by side on worker threads. A study
// plugs in what it draws and what it measures; its options, tables and files stay its own.
#pragma once

#include <atomic>
#include <concepts>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "base/parallel_tasks.h"
#include "simulator/progress_bar.h"
#include "simulator/time_replay/options.h"
#include "simulator/time_replay/replay_engine.h"
#include "simulator/time_replay/replay_setup.h"
#include "simulator/time_replay/replay_workload.h"

namespace gangplank::simulator {

// Every policy's replay under the events of one seed.
template <typename Draw, typename Figures>
struct SeedRun {
  std::uint64_t seed = 0;
  Draw draw;                          // The same for every policy.
  std::vector<ReplayResult> results;  // One per policy, in the order asked for.
  std::vector<Figures> figures;
};

template <typename Draw, typename Figures>
struct SeededReplays {
  Workload workload;
  std::vector<SeedRun<Draw, Figures>> runs;  // One per seed, in the order asked for.
  std::vector<std::string> notes;            // The trace's.

  std::vector<std::uint64_t> Seeds() const {
    std::vector<std::uint64_t> seeds;
    for (const auto& run : runs) seeds.push_back(run.seed);
    return seeds;
  }
  // `[seed][policy]`.
  std::vector<std::vector<Figures>> FiguresPerSeed() const {
    std::vector<std::vector<Figures>> per_seed;
    for (const auto& run : runs) per_seed.push_back(run.figures);
    return per_seed;
  }
};

// What a study plugs in: its draw of one seed's events for the workload, and one policy's replay under them
// with what it measures. Replay is called from several threads at once and must touch nothing shared.
template <typename S>
concept ReplayStudy = requires(const S& study, const PreparedReplay& prepared, const typename S::Draw& draw,
                               const Workload& workload, std::uint64_t seed, const std::string& policy) {
  { study.DrawFor(seed, workload) } -> std::same_as<typename S::Draw>;
  { study.Replay(prepared, draw, policy) } -> std::same_as<std::pair<ReplayResult, typename S::Figures>>;
};

struct SeededReplayPlan {
  std::vector<std::uint64_t> seeds;
  std::vector<std::string> policies;
  int threads = 1;
  std::string label;  // The progress bar's ("fault replays").
  bool progress = false;
};

template <ReplayStudy S>
SeededReplays<typename S::Draw, typename S::Figures> RunSeededReplays(const PreparedReplay& prepared,
                                                                      const SeededReplayPlan& plan, const S& study) {
  SeededReplays<typename S::Draw, typename S::Figures> out;
  out.workload = prepared.workload;
  out.notes = prepared.notes;
  for (std::uint64_t seed : plan.seeds) {
    auto& run = out.runs.emplace_back();
    run.seed = seed;
    run.draw = study.DrawFor(seed, out.workload);
    run.results.resize(plan.policies.size());
    run.figures.resize(plan.policies.size());
  }
  // Every (seed, policy) replay is independent and writes only its own slots.
  const std::size_t policies = plan.policies.size();
  const int total = static_cast<int>(out.runs.size() * policies);
  ProgressBar bar(plan.label, plan.progress);
  std::atomic<int> done{0};
  base::RunTasks(out.runs.size() * policies, plan.threads, [&](std::size_t task) {
    auto& run = out.runs[task / policies];
    const std::size_t p = task % policies;
    auto [result, figures] = study.Replay(prepared, run.draw, plan.policies[p]);
    run.results[p] = std::move(result);
    run.figures[p] = std::move(figures);
    bar.Update(++done, total);
  });
  return out;
}

// The lines a study's report and log open with: the replay's setup, the study's own lines, then the trace's
// notes.
std::vector<std::string> StudySetupLines(const TimeReplayOptions& replay, const Workload& workload,
                                         std::vector<std::string> study_lines, const std::vector<std::string>& notes);

}  // namespace gangplank::simulator

#include "operator/utilization/idle_gangs.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <memory>
#include <utility>

#include <spdlog/spdlog.h>

#include "base/time_format.h"
#include "cache/objects/conventions.h"
#include "engine/idle/idle_verdict.h"
#include "logging/json_log.h"
#include "operator/gangs/gang_annotations.h"
#include "operator/reasons.h"
#include "operator/utilization/usage_accounting.h"
#include "operator/writer/checkpoint_request.h"
#include "operator/writer/gang_eviction.h"

namespace gangplank::op {
namespace {

cache::IdlePolicyConfig ConfigOf(const cache::PoolConfig& pool, const QueueTree& tree, const std::string& queue) {
  const auto q = tree.queues.find(queue);
  return q == tree.queues.end() ? pool.idle : cache::IdlePolicyFor(pool.idle, q->second.idle);
}

engine::IdlePolicy ToEngine(const cache::IdlePolicyConfig& c) {
  engine::IdlePolicy p;
  switch (c.action) {
    case cache::IdleAction::kOff: p.action = engine::IdlePolicy::kOff; break;
    case cache::IdleAction::kReport: p.action = engine::IdlePolicy::kReport; break;
    case cache::IdleAction::kPreemptible: p.action = engine::IdlePolicy::kPreemptible; break;
    case cache::IdleAction::kReclaim: p.action = engine::IdlePolicy::kReclaim; break;
  }
  p.threshold_percent = c.threshold_percent;
  p.idle_seconds = c.idle_seconds;
  p.min_age_seconds = c.min_age_seconds;
  return p;
}

std::string ActionWord(engine::IdlePolicy::Action action) {
  switch (action) {
    case engine::IdlePolicy::kReport: return "report";
    case engine::IdlePolicy::kPreemptible: return "preemptible";
    case engine::IdlePolicy::kReclaim: return "reclaim";
    case engine::IdlePolicy::kOff: break;
  }
  return "off";
}

std::string WhatFollows(engine::IdlePolicy::Action action) {
  switch (action) {
    case engine::IdlePolicy::kPreemptible: return "it is now the first victim of reclaim and preemption";
    case engine::IdlePolicy::kReclaim: return "it is asked to checkpoint, then evicted whole and not run again";
    default: return "reported only";
  }
}

bool OptedOut(const Gang& gang) {
  for (const Member& m : gang.members) {
    const auto it = m.pod.annotations.find(std::string(cache::kIdleExemptAnnotation));
    if (it == m.pod.annotations.end()) continue;
    std::string v = it->second;
    std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return std::tolower(c); });
    if (v == "true") return true;
  }
  return false;
}

}  // namespace

engine::IdlePolicy IdlePolicyOf(const cache::PoolConfig& pool, const QueueTree& tree, const std::string& queue) {
  return ToEngine(ConfigOf(pool, tree, queue));
}

IdleGangs::IdleGangs(const GangTracker& tracker, ClusterWriter& writer, GangConditions& conditions,
                     UsageMetrics* metrics, std::function<void(PoolModel&, const cache::PodInfo&)> assume,
                     double max_gap_seconds)
    : tracker_(tracker), writer_(writer), conditions_(conditions), metrics_(metrics), assume_(std::move(assume)),
      max_gap_seconds_(max_gap_seconds) {}

void IdleGangs::Sample(PoolModel& model, const PodUtilizationSnapshot* snapshot, const QueueTree& tree) {
  IdleBook& book = model.idle;
  if (snapshot == nullptr || snapshot->at <= book.last_read_at) return;
  book.last_read_at = snapshot->at;
  const auto& running = model.book.input().running;
  double age = 0;
  for (const engine::RunningGang& r : running) age = std::max(age, IdlePolicyOf(model.config(), tree, r.queue).idle_seconds);
  age += 2 * max_gap_seconds_;
  if (!book.samples || book.samples_max_age < age) {
    // A longer policy needs a longer memory: start a window that keeps it (the clocks start again).
    book.samples = std::make_unique<engine::UtilizationWindow>(age);
    book.samples_max_age = age;
  }
  for (const engine::RunningGang& r : running) {
    if (IdlePolicyOf(model.config(), tree, r.queue).action == engine::IdlePolicy::kOff) continue;
    const std::shared_ptr<const Gang> gang = tracker_.Share(r.name);
    if (!gang) continue;
    const double percent = GangUtilization(*gang, snapshot);
    book.samples->Add(r.name, {snapshot->at, percent >= 0 ? std::optional<double>(percent) : std::nullopt});
  }
  book.samples->Prune(snapshot->at);
}

bool AnyIdlePolicy(const cache::PoolConfig& pool, const QueueTree& tree) {
  if (pool.idle.action != cache::IdleAction::kOff) return true;
  for (const auto& [name, queue] : tree.queues) {
    if (queue.idle.action && *queue.idle.action != cache::IdleAction::kOff) return true;
  }
  return false;
}

IdleOutcome IdleGangs::Run(PoolModel& model, const PodUtilizationSnapshot* snapshot, const QueueTree& tree, double now) {
  if (!AnyIdlePolicy(model.config(), tree)) {
    if (!model.idle.reported.empty() || !model.idle.preemptible.empty()) {
      // Every queue's policy turned Off: no mark, no memory of an idle spell.
      for (auto& running : model.book.input().running) running.idle_preemptible = false;
      Count(model, {});
      model.idle = IdleBook{};
    }
    return {};
  }
  // Verdicts change only with a new read (a sample, or a failed read's missing one) or a deadline: a pod
  // event in between only puts the marks back on the book's entries, which a refresh made afresh.
  const bool fresh = snapshot != nullptr && snapshot->at > model.idle.last_read_at;
  if (!fresh && now < model.idle_wakeup) {
    Remark(model);
    return {0, 0, model.idle_wakeup};
  }
  return Judge(model, snapshot, tree, now);
}

void IdleGangs::Remark(PoolModel& model) {
  for (const std::string& key : model.idle.preemptible) {
    if (const int r = model.book.RunningIndex(key); r >= 0) model.book.input().running[r].idle_preemptible = true;
  }
}

IdleOutcome IdleGangs::Judge(PoolModel& model, const PodUtilizationSnapshot* snapshot, const QueueTree& tree, double now) {
  IdleOutcome out;
  Sample(model, snapshot, tree);
  std::map<std::pair<std::string, std::string>, int> counts;
  auto& running = model.book.input().running;
  for (size_t i = 0; i < running.size(); ++i) {
    // Copies: an eviction below marks the book's entry terminating.
    const std::string key = running[i].name;
    const std::string queue = running[i].queue;
    const cache::IdlePolicyConfig config = ConfigOf(model.config(), tree, queue);
    const engine::IdlePolicy policy = ToEngine(config);
    const std::shared_ptr<const Gang> gang = policy.action == engine::IdlePolicy::kOff ? nullptr : tracker_.Share(key);
    if (!gang || running[i].terminating) {
      if (!running[i].terminating) model.idle.Forget(key);
      running[i].idle_preemptible = false;
      continue;
    }
    static const std::vector<engine::UtilizationSample> kNone;
    const auto& samples = model.idle.samples ? model.idle.samples->Samples(key) : kNone;
    const double start = running[i].admitted_at > 0 ? running[i].admitted_at : running[i].start;
    const engine::IdleVerdict v =
        engine::JudgeIdle(samples, start, now, policy, config.allow_opt_out && OptedOut(*gang), max_gap_seconds_);
    if (!v.idle) {
      Unsaid(model, *gang);
      model.idle.preemptible.erase(key);
      model.idle.checkpoint_deadline.erase(key);
      running[i].idle_preemptible = false;
      continue;
    }
    ++out.idle;
    ++counts[{queue, std::string(cache::IdleActionName(config.action))}];
    Said(model, *gang, queue, policy, v.reason, now);
    // A new victim changes what reclaim and preemption may take: the next round must be a full one,
    // not one of the incremental rounds that may follow for up to --max-staleness-seconds.
    if (policy.action == engine::IdlePolicy::kPreemptible && model.idle.preemptible.insert(key).second) {
      model.NoteRunningChanged();
    }
    running[i].idle_preemptible = policy.action == engine::IdlePolicy::kPreemptible;
    if (policy.action == engine::IdlePolicy::kReclaim) Reclaim(model, *gang, queue, v.reason, now, out);
  }
  Count(model, counts);
  return out;
}

void IdleGangs::Said(PoolModel& model, const Gang& gang, const std::string& queue, const engine::IdlePolicy& policy,
                     const std::string& reason, double now) {
  if (model.idle.reported.count(gang.key) > 0) return;
  model.idle.reported[gang.key] = now;
  const std::string message = reason + "; idle policy " + ActionWord(policy.action) + ": " + WhatFollows(policy.action);
  writer_.SetPodCondition(gang.members.front().pod, {reasons::kGpusIdleCondition, "True", reasons::kIdleGpus, message});
  conditions_.Event(gang, reasons::kWarning, reasons::kGangIdle, message);
  // A reclaim is counted when it happens (the gang may still work again before its deadline).
  if (metrics_ != nullptr && policy.action != engine::IdlePolicy::kReclaim) {
    metrics_->IdleAction(model.config().name, queue, ActionWord(policy.action));
  }
  spdlog::info(logging::JsonFields("gang idle", "pool", model.config().name, "gang", gang.key, "queue", queue,
                                   "policy", ActionWord(policy.action), "reason", reason));
}

void IdleGangs::Unsaid(PoolModel& model, const Gang& gang) {
  if (model.idle.reported.erase(gang.key) == 0) return;
  writer_.SetPodCondition(gang.members.front().pod,
                          {reasons::kGpusIdleCondition, "False", reasons::kGpusBusy, "its GPUs are in use again"});
}

void IdleGangs::Reclaim(PoolModel& model, const Gang& gang, const std::string& queue, const std::string& why,
                        double now, IdleOutcome& outcome) {
  const double grace = model.config().fault_recovery.checkpoint_grace_seconds;
  const auto asked = model.idle.checkpoint_deadline.find(gang.key);
  if (grace > 0 && asked == model.idle.checkpoint_deadline.end()) {
    const double deadline = now + grace;
    model.idle.checkpoint_deadline[gang.key] = deadline;
    RequestCheckpoint(writer_, LiveMembers(gang), base::FormatEpochSeconds(deadline), cache::kCheckpointCauseIdleReclaim,
                      [&](const cache::PodInfo& pod) { assume_(model, pod); });
    conditions_.Event(gang, reasons::kNormal, reasons::kCheckpointRequested,
                      "its GPUs are idle: checkpoint by " + base::FormatEpochSeconds(deadline) +
                          " (annotate any member " + std::string(cache::kCheckpointDoneAnnotation) +
                          "), then the gang is evicted whole and not run again");
    outcome.next_wakeup = std::min(outcome.next_wakeup, deadline);
    return;
  }
  if (asked != model.idle.checkpoint_deadline.end() && now < asked->second) {
    const std::optional<double> done = LatestAnnotatedTime(gang, cache::kCheckpointDoneAnnotation);
    // Annotation times have whole seconds: an acknowledgement in the request's own second counts.
    if (!done || *done < std::floor(asked->second - grace)) {
      outcome.next_wakeup = std::min(outcome.next_wakeup, asked->second);
      return;
    }
  }
  const GangEviction eviction = EvictGang(writer_, LiveMembers(gang));
  if (metrics_ != nullptr) metrics_->IdleAction(model.config().name, queue, "reclaim");
  if (eviction.outcome == GangEviction::Outcome::kBlocked) {
    conditions_.Event(gang, reasons::kWarning, reasons::kEvictionBlocked, "idle reclaim waits: " + eviction.reason);
    outcome.next_wakeup = std::min(outcome.next_wakeup, now + max_gap_seconds_);
    return;
  }
  model.evicting.insert(gang.key);
  model.book.MarkTerminating(gang.key);
  RestartRecord& record = model.restarts.At(gang.key);
  record.failed = true;
  record.last_restart_at = now;
  record.cause = kIdleReclaimCause;
  record.message = "reclaimed for idle GPUs: " + why;
  model.restarts_changed = true;
  model.requeued_arrivals.erase(gang.key);
  model.idle.Forget(gang.key);
  ++outcome.reclaimed;
  conditions_.Event(gang, reasons::kWarning, reasons::kIdleReclaimed,
                    why + ": evicted whole and not run again (delete its owner to free the record)");
  spdlog::info(logging::JsonFields("reclaimed an idle gang", "pool", model.config().name, "gang", gang.key,
                                   "queue", queue, "reason", why));
}

void IdleGangs::Count(PoolModel& model, const std::map<std::pair<std::string, std::string>, int>& counts) {
  if (metrics_ == nullptr) return;
  for (const auto& [key, n] : model.idle.counted) {
    if (counts.count(key) == 0) metrics_->IdleGangs(model.config().name, key.first, key.second, 0);
  }
  for (const auto& [key, n] : counts) metrics_->IdleGangs(model.config().name, key.first, key.second, n);
  model.idle.counted = counts;
}

}  // namespace gangplank::op

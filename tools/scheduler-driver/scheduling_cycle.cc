#include "tools/scheduler-driver/scheduling_cycle.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "logging/json_log.h"
#include "tools/scheduler-driver/fit_error.h"
#include "tools/scheduler-driver/node_fit.h"
#include "tools/scheduler-driver/node_selection.h"

namespace gangplank::scheduler_driver {
namespace {

kube::ObjectReference ReferenceTo(const kube::Pod& pod) {
  return {"v1", "Pod", pod.meta.namespace_, pod.meta.name, pod.meta.uid, pod.meta.resource_version};
}

std::string Join(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ",") + n;
  return out;
}

}  // namespace

AttemptOutcome SchedulingCycle::Fail(const PodEntry& entry, const char* reason, const std::string& message) {
  const bool unschedulable = std::string_view(reason) == kReasonUnschedulable;
  parts_.metrics.CountAttempt(unschedulable ? "unschedulable" : "error");
  if (unschedulable) parts_.metrics.CountFilterFailure();
  const std::string key = entry.pod->meta.key();
  if (unschedulable) {
    spdlog::info(logging::JsonFields("unschedulable", "pod", key, "message", message));
  } else {
    spdlog::warn(logging::JsonFields("scheduling attempt failed", "pod", key, "error", message));
  }
  parts_.conditions.SetNotScheduled(*entry.raw, reason, message);
  parts_.events.Record(ReferenceTo(*entry.pod), "Warning", "FailedScheduling", message);
  return {unschedulable ? AttemptResult::kUnschedulable : AttemptResult::kError, "", message};
}

AttemptOutcome SchedulingCycle::Run(const PodEntry& entry) {
  const kube::Pod& pod = *entry.pod;
  const std::string key = pod.meta.key();

  // In-tree filters, on every node (percentageOfNodesToScore: 100).
  std::vector<kube::Informer<kube::Node>::Ptr> nodes = parts_.nodes.List();
  std::sort(nodes.begin(), nodes.end(), [](const auto& a, const auto& b) { return a->meta.name < b->meta.name; });
  const auto usage = parts_.view.Usage();
  const NodeUsage nothing;
  FitDiagnosis diagnosis;
  std::vector<std::string> feasible;
  for (const auto& node : nodes) {
    const auto used = usage.find(node->meta.name);
    std::vector<std::string> reasons = InTreeFilter(pod, *node, used == usage.end() ? nothing : used->second);
    if (reasons.empty()) {
      feasible.push_back(node->meta.name);
    } else {
      diagnosis.Add(node->meta.name, reasons);
    }
  }
  if (feasible.empty()) return Fail(entry, kReasonUnschedulable, diagnosis.Message(nodes.size()));

  // The extender's filter on the survivors.
  const ExtenderOptions& ext = options_.extender;
  if (!ext.filter_verb.empty()) {
    try {
      FilterResult filtered = parts_.extender.Filter(entry.raw->json, feasible);
      for (const auto& [node, reason] : filtered.unresolvable) diagnosis.Add(node, {reason});
      for (const auto& [node, reason] : filtered.failed) diagnosis.Add(node, {reason});
      spdlog::debug(logging::JsonFields("extender filter", "pod", key, "asked", Join(feasible), "passed",
                                        Join(filtered.passed)));
      feasible = std::move(filtered.passed);
    } catch (const ExtenderError& e) {
      parts_.metrics.CountExtenderError("filter");
      if (!ext.ignorable) return Fail(entry, kReasonSchedulerError, e.what());
      spdlog::warn(logging::JsonFields("ignorable extender failed its filter; skipping it", "pod", key, "error", e.what()));
    }
    if (feasible.empty()) return Fail(entry, kReasonUnschedulable, diagnosis.Message(nodes.size()));
  }

  // Scores: only when more than one node is left ("when only one node after predicate, just use it").
  std::vector<HostPriority> scores;
  if (feasible.size() > 1 && !ext.prioritize_verb.empty()) {
    try {
      scores = parts_.extender.Prioritize(entry.raw->json, feasible);
    } catch (const ExtenderError& e) {
      // Prioritize errors are ignored whatever `ignorable` says; the pod is still scheduled.
      parts_.metrics.CountExtenderError("prioritize");
      spdlog::warn(logging::JsonFields("extender prioritize failed; scoring every node 0", "pod", key, "error", e.what()));
    }
  }
  const auto totals = TotalScores(feasible, scores, ext.weight);
  const std::string node = SelectHost(totals);
  std::string how = "feasible=" + Join(feasible);
  if (feasible.size() > 1) {
    how += " totals=";
    for (const auto& [name, total] : totals) how += name + ":" + std::to_string(total) + " ";
    how.pop_back();
  }
  return Bind(entry, node, how);
}

AttemptOutcome SchedulingCycle::Bind(const PodEntry& entry, const std::string& node, const std::string& how) {
  const kube::Pod& pod = *entry.pod;
  const std::string key = pod.meta.key();
  parts_.view.Assume(pod, node);  // Before the binding: the next pod must not take this capacity.
  const BindReport report = parts_.binder.Bind(pod, node);
  switch (report.status) {
    case BindStatus::kBound:
      parts_.metrics.CountAttempt("scheduled");
      parts_.metrics.CountBound();
      spdlog::info(logging::JsonFields("bound", "pod", key, "node", node, "via",
                                       report.via_extender ? "extender" : "apiserver", "decision", how));
      parts_.events.Record(ReferenceTo(pod), "Normal", "Scheduled", "Successfully assigned " + key + " to " + node);
      return {AttemptResult::kScheduled, node, ""};
    case BindStatus::kAlreadyBoundHere:
      // Assumption kept: the pod is on that node; the informer will confirm it.
      parts_.metrics.CountAttempt("scheduled");
      parts_.metrics.CountBindingConflict();
      spdlog::warn(logging::JsonFields("binding conflict: pod already assigned to this node", "pod", key, "node", node,
                                       "error", report.message));
      return {AttemptResult::kDone, node, report.message};
    case BindStatus::kBoundElsewhere:
      parts_.view.Forget(key);
      parts_.metrics.CountAttempt("error");
      parts_.metrics.CountBindingConflict();
      spdlog::warn(logging::JsonFields("binding conflict: pod already assigned to another node", "pod", key, "node",
                                       node, "error", report.message));
      return {AttemptResult::kDone, "", report.message};
    case BindStatus::kPodGone:
      parts_.view.Forget(key);
      parts_.metrics.CountAttempt("error");
      spdlog::info(logging::JsonFields("pod gone before binding", "pod", key, "node", node));
      return {AttemptResult::kDone, "", report.message};
    case BindStatus::kFailed:
      break;
  }
  parts_.view.Forget(key);
  if (report.via_extender) parts_.metrics.CountExtenderError("bind");
  return Fail(entry, kReasonSchedulerError, "binding rejected: " + report.message);
}

}  // namespace gangplank::scheduler_driver

#include "tools/scheduler-driver/scheduler_driver.h"

#include <spdlog/spdlog.h>

#include "logging/json_log.h"
#include "tools/scheduler-driver/cluster_events.h"
#include "tools/scheduler-driver/pod_candidacy.h"

namespace gangplank::scheduler_driver {

SchedulerDriver::SchedulerDriver(DriverOptions options, std::shared_ptr<kube::RestClient> rest)
    : options_(std::move(options)),
      client_(std::make_shared<kube::Client>(rest)),
      informers_(rest),
      pods_(informers_.objects(kube::resources::Pods())),
      nodes_(informers_.nodes()),
      queue_(options_.initial_backoff, options_.max_backoff),
      extender_(options_.extender),
      binder_(client_, options_.extender.bind_via_extender ? &extender_ : nullptr, options_.extender.ignorable),
      conditions_(client_),
      events_(client_, options_.component),
      cycle_(options_, {view_, nodes_, extender_, binder_, conditions_, events_, metrics_}) {
  pods_.AddHandlers({
      .on_add = [this](const auto& pod) { OnPod(pod); },
      .on_update = [this](const auto&, const auto& pod) { OnPod(pod); },
      .on_delete = [this](const auto& last, bool) { OnPodDeleted(last->meta.key()); },
  });
  nodes_.AddHandlers({
      .on_add = [this](const auto& node) { OnNode(nullptr, *node); },
      .on_update = [this](const auto& before, const auto& after) { OnNode(before.get(), *after); },
      .on_delete = {},
  });
}

SchedulerDriver::~SchedulerDriver() { Stop(); }

void SchedulerDriver::OnPod(const std::shared_ptr<const kube::GenericObject>& raw) {
  const std::string key = raw->meta.key();
  const ClusterView::PodChange change = view_.UpsertPod(raw);
  if (!change.after) {
    queue_.Remove(key);
    if (FreesNodeResources(change.before.get(), nullptr)) queue_.MoveAllToActive();
    return;
  }
  const kube::Pod& now = *change.after;
  if (IsSchedulingCandidate(now, options_.scheduler_name)) {
    const bool was = change.before && IsSchedulingCandidate(*change.before, options_.scheduler_name);
    if (!was || SchedulingRelevantChange(*change.before, now)) queue_.Add(OrderOf(now));
  } else {
    queue_.Remove(key);
  }
  if (FreesNodeResources(change.before.get(), &now)) queue_.MoveAllToActive();
}

void SchedulerDriver::OnPodDeleted(const std::string& key) {
  const ClusterView::PodChange change = view_.DeletePod(key);
  queue_.Remove(key);
  if (FreesNodeResources(change.before.get(), nullptr)) queue_.MoveAllToActive();
}

void SchedulerDriver::OnNode(const kube::Node* before, const kube::Node& after) {
  if (NodeMayAdmitMore(before, after)) queue_.MoveAllToActive();
}

void SchedulerDriver::Start() {
  if (running_.exchange(true)) return;
  informers_.Start();
  thread_ = std::thread([this] { Run(); });
}

void SchedulerDriver::Stop() {
  if (!running_.exchange(false)) return;
  queue_.Shutdown();
  if (thread_.joinable()) thread_.join();
  informers_.Stop();
}

bool SchedulerDriver::WaitForSync(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!synced_) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

void SchedulerDriver::Run() {
  // kube-scheduler waits for its informers before the first cycle; so does the driver.
  const auto step = std::chrono::milliseconds(100);
  while (running_ && !(nodes_.WaitForSync(step) && pods_.WaitForSync(step) && nodes_.WaitIdle(step) &&
                       pods_.WaitIdle(step))) {
  }
  if (!running_) return;
  synced_ = true;
  const std::string extender = options_.extender.base_url + options_.extender.path_prefix;
  spdlog::info(logging::JsonFields("caches synced; scheduling", "schedulerName", options_.scheduler_name, "extender",
                                   extender, "nodes", std::to_string(nodes_.size()), "pods",
                                   std::to_string(view_.PodCount())));
  while (auto key = queue_.Pop()) {
    metrics_.SetQueue(queue_.Waiting(), view_.AssumedCount());
    const std::optional<PodEntry> entry = view_.Pod(*key);
    // Level-triggered: the pod as it is now. A pod this driver already bound is never tried again.
    if (!entry || !IsSchedulingCandidate(*entry->pod, options_.scheduler_name) || view_.IsAssumed(*key)) {
      queue_.Done(*key);
      continue;
    }
    AttemptOutcome outcome;
    try {
      outcome = cycle_.Run(*entry);
    } catch (const std::exception& e) {
      spdlog::error(logging::JsonFields("scheduling attempt threw", "pod", *key, "error", e.what()));
      outcome.result = AttemptResult::kError;
    }
    if (outcome.result == AttemptResult::kUnschedulable || outcome.result == AttemptResult::kError) {
      queue_.Backoff(*key);
    } else {
      queue_.Done(*key);
    }
    metrics_.SetQueue(queue_.Waiting(), view_.AssumedCount());
  }
}

}  // namespace gangplank::scheduler_driver

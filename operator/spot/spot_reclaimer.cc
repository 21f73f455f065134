#include "operator/spot/spot_reclaimer.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <set>
#include <unordered_map>

#include "cache/objects/conventions.h"
#include "engine/admission/admission_input.h"
#include "base/time_format.h"
#include "logging/json_log.h"
#include "operator/gangs/gang_annotations.h"
#include "operator/writer/checkpoint_request.h"
#include "operator/writer/gang_eviction.h"
#include "operator/reasons.h"

namespace gangplank::op {
namespace {

base::SystemTime FromSeconds(double s) {
  return base::SystemTime(std::chrono::duration_cast<base::SystemTime::duration>(std::chrono::duration<double>(s)));
}

std::string Text(double seconds, const char* format = "%.0f") {
  char buf[32];
  std::snprintf(buf, sizeof buf, format, seconds);
  return buf;
}

struct PoolNotices {
  std::vector<engine::NodeNotice> notices;
  std::unordered_map<engine::NodeId, std::string> names;
};

PoolNotices NoticesInPool(PoolModel& model, const NoticeSnapshot& snapshot) {
  PoolNotices out;
  model.state().Read([&](const cache::StateView& v) {
    for (const auto& [name, noticed] : snapshot) {
      const engine::NodeId id = v.FindNode(name);
      if (id == engine::kNoNode) continue;
      out.notices.push_back({id, noticed.noticed_at, noticed.terminate_at});
      out.names[id] = name;
    }
  });
  return out;
}

}  // namespace

engine::SpotConfig SpotConfigFor(const cache::PoolConfig& pool, double eviction_margin_seconds) {
  engine::SpotConfig config;
  config.policy = pool.spot_handling.checkpoint_then_evict ? engine::SpotPolicy::kCheckpointThenEvict
                                                           : engine::SpotPolicy::kEvictOnNotice;
  config.checkpoint_grace_seconds = pool.spot_handling.checkpoint_grace_seconds;
  config.eviction_margin_seconds = eviction_margin_seconds;
  return config;
}

SpotReclaimer::SpotReclaimer(GangTracker& tracker, ClusterWriter& writer, GangConditions& conditions,
                             OperatorMetrics* metrics, std::function<void(PoolModel&, const cache::PodInfo&)> assume,
                             double eviction_margin_seconds)
    : tracker_(tracker), writer_(writer), conditions_(conditions), metrics_(metrics), assume_(std::move(assume)),
      eviction_margin_seconds_(eviction_margin_seconds) {}

SpotOutcome SpotReclaimer::Run(PoolModel& model, const NoticeSnapshot& snapshot, double now) {
  SpotOutcome outcome;
  const PoolNotices pool = snapshot.empty() ? PoolNotices{} : NoticesInPool(model, snapshot);
  // Requests to take back can only appear when a notice goes (or under a new model: a leader before it asked).
  std::set<std::string> nodes;
  for (const auto& [id, name] : pool.names) nodes.insert(name);
  const bool notice_went = !model.spot_requests_checked ||
                           std::any_of(model.spot_nodes.begin(), model.spot_nodes.end(),
                                       [&](const std::string& n) { return nodes.count(n) == 0; });
  model.spot_nodes = std::move(nodes);
  model.spot_requests_checked = true;
  if (pool.notices.empty() && !notice_went) return outcome;

  // Only gangs with a member on a doomed node (and, when a notice went, every gang) are read from the tracker.
  std::vector<engine::GangOnNodes> affected;
  std::map<std::string, Gang> gangs;
  const engine::AdmissionInput& input = model.book.input();
  for (const engine::RunningGang& running : input.running) {
    engine::GangOnNodes g;
    g.name = running.name;
    g.terminating = running.terminating;
    for (const engine::Allocation& a : running.allocations) g.nodes.push_back(a.node);
    const bool doomed = std::any_of(g.nodes.begin(), g.nodes.end(), [&](engine::NodeId n) { return pool.names.count(n) > 0; });
    if ((!doomed && !notice_went) || g.terminating || running.ungoverned) continue;
    const std::shared_ptr<const Gang> gang = tracker_.Share(running.name);
    if (!gang) continue;
    g.checkpoint_asked_for_notice =
        AnyMemberAnnotatedWith(*gang, cache::kCheckpointCauseAnnotation, cache::kCheckpointCauseSpotNotice);
    if (!doomed && !g.checkpoint_asked_for_notice) continue;
    g.checkpoint_deadline = LatestAnnotatedTime(*gang, cache::kCheckpointRequestedAnnotation);
    g.checkpoint_done = AnyMemberAnnotated(*gang, cache::kCheckpointDoneAnnotation);
    g.checkpoint_done_at = LatestAnnotatedTime(*gang, cache::kCheckpointDoneAnnotation);
    gangs.emplace(running.name, std::move(*gang));
    affected.push_back(std::move(g));
  }

  const engine::SpotPlan plan = engine::PlanSpotReclaim(pool.notices, affected, now, SpotConfigFor(model.config(), eviction_margin_seconds_));
  for (const engine::SpotDecision& d : plan.decisions) {
    const Gang& gang = gangs.at(d.gang);
    const std::string& node = pool.names.at(d.node);
    if (d.action == engine::SpotAction::kRequestCheckpoint) {
      RequestCheckpoint(model, gang, d, node);
      ++outcome.checkpoints_requested;
    } else if (d.action == engine::SpotAction::kEvict) {
      if (Evict(model, gang, d, node, snapshot.at(node), now)) ++outcome.evicted;
    }
  }
  for (const std::string& key : plan.withdrawn) WithdrawCheckpoint(model, gangs.at(key));
  outcome.next_wakeup = plan.next_wakeup;
  return outcome;
}

void SpotReclaimer::WithdrawCheckpoint(PoolModel& model, const Gang& gang) {
  const int written = op::WithdrawCheckpoint(writer_, LiveMembers(gang), [&](const cache::PodInfo& pod) { assume_(model, pod); });
  if (written == 0) return;
  conditions_.Event(gang, reasons::kNormal, reasons::kCheckpointWithdrawn,
                    "the termination notice it was asked to checkpoint for is gone: took the request back from " +
                        std::to_string(written) + " members; the gang runs on");
  spdlog::info(logging::JsonFields("took back a notice's checkpoint request", "pool", model.config().name, "gang", gang.key));
}

void SpotReclaimer::RequestCheckpoint(PoolModel& model, const Gang& gang, const engine::SpotDecision& d,
                                      const std::string& node) {
  const std::string deadline = base::FormatTime(FromSeconds(d.deadline));
  const std::vector<cache::PodInfo> members = LiveMembers(gang);
  const int asked = op::RequestCheckpoint(writer_, members, deadline, cache::kCheckpointCauseSpotNotice,
                                          [&](const cache::PodInfo& pod) { assume_(model, pod); });
  conditions_.Event(gang, reasons::kWarning, reasons::kCheckpointRequested,
                    "node " + node + " goes at " + base::FormatTime(FromSeconds(d.terminate_at)) + ": asked all " +
                        std::to_string(asked) + " members to checkpoint by " + deadline +
                        " (annotation " + std::string(cache::kCheckpointRequestedAnnotation) + "; acknowledge with " +
                        std::string(cache::kCheckpointDoneAnnotation) + "), then the gang is evicted whole and requeued");
  if (metrics_ != nullptr) metrics_->SpotCheckpointRequested(model.config().name);
  spdlog::info(logging::JsonFields("asked a gang to checkpoint", "pool", model.config().name, "gang", gang.key, "node",
                                   node, "deadline", deadline));
}

bool SpotReclaimer::Evict(PoolModel& model, const Gang& gang, const engine::SpotDecision& d, const std::string& node,
                          const NoticedNode& notice, double now) {
  const int running = model.book.RunningIndex(gang.key);
  if (running < 0) return false;
  const engine::RunningGang& r = model.book.input().running[running];
  std::vector<cache::PodInfo> pods;
  double arrival = std::numeric_limits<double>::infinity();
  for (const Member& m : gang.members) {
    if (m.deleting()) continue;
    pods.push_back(m.pod);
    arrival = std::min(arrival, m.created);
  }
  // Pods must be gone before the node: the grace period ends when it does.
  const int grace = std::max(1, static_cast<int>(std::floor(d.terminate_at - now)));
  const GangEviction eviction = EvictGangOrDelete(writer_, pods, grace);
  const std::string bypassed = eviction.deleted ? "; " + eviction.reason + ", but the node goes anyway: deleted" : "";
  // Work since the acknowledged checkpoint (its time, when the job wrote one) or since the last known one.
  double lost_gpu_seconds = engine::LostGpuSeconds(r, now);
  if (d.checkpointed) {
    const std::optional<double> at = LatestAnnotatedTime(gang, cache::kCheckpointDoneAnnotation);
    lost_gpu_seconds = r.Gpus() * std::max(0.0, now - at.value_or(now));
  }
  model.evicting.insert(gang.key);
  model.book.MarkTerminating(gang.key);
  if (std::isfinite(arrival)) model.requeued_arrivals[gang.key] = {arrival, now};
  const double lost_hours = lost_gpu_seconds / 3600;
  conditions_.Event(gang, reasons::kWarning, reasons::kSpotReclaimed,
                    "node " + node + " (" + notice.notice.signal + ") goes at " +
                        base::FormatTime(FromSeconds(d.terminate_at)) + ": evicted all " + std::to_string(pods.size()) +
                        " members (" + d.reason + "), requeued whole in its place; lost " + Text(lost_hours, "%.2f") +
                        " GPU-hours" + bypassed);
  const char* checkpoint = d.checkpointed ? "in_time" : (model.config().spot_handling.checkpoint_then_evict ? "late" : "none");
  if (metrics_ != nullptr) {
    metrics_->Evicted(model.config().name, "SpotReclaim", bypassed.empty() ? "evicted" : "deleted");
    metrics_->SpotReclaimed(model.config().name, checkpoint, lost_hours, now - notice.noticed_at);
  }
  spdlog::info(logging::JsonFields("evicted a gang off a node under notice", "pool", model.config().name, "gang",
                                   gang.key, "node", node, "reason", d.reason, "checkpoint", checkpoint,
                                   "lost_gpu_hours", Text(lost_hours, "%.3f")));
  return true;
}

}  // namespace gangplank::op

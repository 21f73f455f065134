#include "operator/faults/gang_restarter.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "base/time_format.h"
#include "cache/objects/conventions.h"
#include "cache/objects/gang_identity.h"
#include "engine/recovery/fault_message.h"
#include "logging/json_log.h"
#include "operator/gangs/gang_annotations.h"
#include "operator/reasons.h"
#include "operator/writer/checkpoint_request.h"
#include "operator/writer/gang_eviction.h"

namespace gangplank::op {
namespace {

// The place a gang keeps in its queue when its pods come back: its oldest member's creation (infinite
// when it has none).
double ArrivalOf(const Gang& gang) {
  double arrival = std::numeric_limits<double>::infinity();
  for (const Member& m : gang.members) arrival = std::min(arrival, m.created);
  return arrival;
}

std::string Fixed(double v, const char* format) {
  char buf[32];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

engine::FaultCause CauseOf(cache::NodeFaultCause c) {
  switch (c) {
    case cache::NodeFaultCause::kNotReady: return engine::FaultCause::kNodeNotReady;
    case cache::NodeFaultCause::kUnreachable: return engine::FaultCause::kNodeUnreachable;
    case cache::NodeFaultCause::kCondition: return engine::FaultCause::kNodeCondition;
    case cache::NodeFaultCause::kGpuShortfall: return engine::FaultCause::kGpuShortfall;
    case cache::NodeFaultCause::kQuarantine: return engine::FaultCause::kQuarantine;
  }
  return engine::FaultCause::kNodeCondition;
}

engine::FaultCause CauseOf(cache::MemberFaultCause c) {
  return c == cache::MemberFaultCause::kMemberFailed ? engine::FaultCause::kMemberFailed : engine::FaultCause::kMemberDeleted;
}

engine::RecoveryPolicy PolicyOf(cache::FaultPolicy p) {
  switch (p) {
    case cache::FaultPolicy::kRestartGang: return engine::RecoveryPolicy::kRestartGang;
    case cache::FaultPolicy::kFailGang: return engine::RecoveryPolicy::kFailGang;
    case cache::FaultPolicy::kIgnore: return engine::RecoveryPolicy::kIgnore;
  }
  return engine::RecoveryPolicy::kRestartGang;
}

// Whether a member's GPUs are gangplank's to account: it was admitted by gangplank (a sealed plan) and
// runs on its planned node. A pod bound elsewhere at creation and labelled into a gang holds nothing the
// gang answers for (the kubelet refuses it anyway), so it can fake no shortfall on another team's node.
bool AdmittedHere(const Member& m) {
  return m.bound() && !m.deleting() && !m.admission_id.empty() && m.pod.PlannedNode() == m.pod.node_name;
}

// The fenced GPUs (DRA device taints) on each node, by device.
std::map<std::string, const cache::NodeDraGpus::Fenced*> FencedOn(const NodeFaultSnapshot& snapshot, const std::string& node) {
  std::map<std::string, const cache::NodeDraGpus::Fenced*> out;
  const auto it = snapshot.find(node);
  if (it == snapshot.end()) return out;
  for (const cache::NodeDraGpus::Fenced& f : it->second.fenced) out.emplace(f.device, &f);
  return out;
}

// Whole GPUs the admitted members of running gangs hold, by node (a fenced DRA GPU a pod holds is still
// offered until released: a fault of its own gang, not a shortfall of the node's): from the pods
// themselves, since the cache stops counting a pod on a node that no longer has room for it.
std::map<std::string, int> HeldGpus(const std::map<std::string, std::shared_ptr<const Gang>>& gangs) {
  std::map<std::string, int> held;
  for (const auto& [key, gang] : gangs) {
    for (const Member& m : gang->members) {
      if (AdmittedHere(m) && !m.request.IsSharing()) held[m.pod.node_name] += m.request.gpu_count;
    }
  }
  return held;
}

// The faults of the pool's nodes as the engine reads them: each signal the node informer saw, and a GPU
// shortfall where the pool's running gangs hold more GPUs on a node than it now offers.
std::vector<engine::NodeFault> NodeFaultsInPool(PoolModel& model, const NodeFaultSnapshot& snapshot,
                                                const std::map<std::string, int>& held, double now) {
  std::vector<engine::NodeFault> out;
  model.state().Read([&](const cache::StateView& v) {
    for (const auto& [name, faulty] : snapshot) {
      if (v.FindNode(name) == engine::kNoNode) continue;
      for (const cache::NodeFaultSignal& s : faulty.signals) {
        out.push_back({name, CauseOf(s.cause), s.signal, s.since.value_or(now), s.host_alive, 0, 0});
      }
    }
    for (const auto& [name, gpus] : held) {
      const engine::NodeId id = v.FindNode(name);
      if (id == engine::kNoNode) continue;
      const int offered = v.cluster().spec(id).gpu_count;
      if (offered >= gpus) {
        model.shortfall_since.erase(name);
        continue;
      }
      // Since when: the node's fault grace runs from the first look that saw it.
      const double since = model.shortfall_since.emplace(name, now).first->second;
      out.push_back({name, engine::FaultCause::kGpuShortfall,
                     "GPUs offered " + std::to_string(offered) + " < " + std::to_string(gpus) + " held", since, true,
                     offered, gpus});
    }
  });
  for (auto it = model.shortfall_since.begin(); it != model.shortfall_since.end();) {
    it = held.count(it->first) ? std::next(it) : model.shortfall_since.erase(it);
  }
  return out;
}

// The member's held GPUs that a device taint fences, as faults of its gang.
void AddDeviceFaults(const Member& m, const NodeFaultSnapshot& snapshot, double now, std::vector<engine::DeviceFault>& out) {
  if (!m.pod.dra) return;
  const auto fenced = FencedOn(snapshot, m.pod.node_name);
  for (const cache::HeldDevice& d : m.pod.dra->held) {
    const auto f = fenced.find(d.device);
    if (f == fenced.end()) continue;
    const double since = base::ParseEpochSeconds(f->second->since).value_or(now);
    out.push_back({m.pod.Key(), m.pod.node_name, d.device, f->second->taint, since});
  }
}

}  // namespace

engine::RecoveryConfig RecoveryConfigFor(const cache::PoolConfig& pool, const QueueTree& tree, const std::string& queue) {
  cache::PoolFaultRecovery f = pool.fault_recovery;
  if (const auto q = tree.queues.find(queue); q != tree.queues.end()) f = cache::FaultRecoveryFor(f, q->second);
  engine::RecoveryConfig c;
  c.policy = PolicyOf(f.policy);
  c.restart_limit = f.restart_limit;
  c.backoff_seconds = f.backoff_seconds;
  c.max_backoff_seconds = f.max_backoff_seconds;
  c.node_grace_seconds = f.node_grace_seconds;
  c.below_minimum_grace_seconds = f.below_minimum_grace_seconds;
  c.checkpoint_grace_seconds = f.checkpoint_grace_seconds;
  c.replace_members = f.replace_members;
  return c;
}

GangRestarter::GangRestarter(GangTracker& tracker, ClusterWriter& writer, GangConditions& conditions,
                             OperatorMetrics* metrics, MemberFaults& member_faults,
                             std::function<void(PoolModel&, const cache::PodInfo&)> assume)
    : tracker_(tracker), writer_(writer), conditions_(conditions), metrics_(metrics), member_faults_(member_faults),
      assume_(std::move(assume)) {}

void GangRestarter::NoteRecovered(PoolModel& model, const engine::RunningGang& running, double now) {
  RestartRecord* record = model.restarts.Mutable(running.name);
  if (record == nullptr || record->running_again || !running.started || running.terminating) return;
  record->running_again = true;
  model.restarts_changed = true;
  if (metrics_ != nullptr) metrics_->GangRecovered(model.config().name, now - record->fault_at);
}

engine::GangHealth GangRestarter::HealthOf(PoolModel& model, const engine::RunningGang& running, const Gang& gang,
                                           const QueueTree& tree, const GangTerms& terms, const NodeFaultSnapshot& snapshot,
                                           double now) {
  engine::GangHealth h;
  h.name = running.name;
  h.config = RecoveryConfigFor(model.config(), tree, running.queue);
  if (terms.disrupt_whole) h.config.replace_members = false;
  h.terminating = running.terminating;
  // Where its members run, by the pods (the cache leaves out a pod whose node shrank below it).
  std::string admission;
  for (const Member& m : gang.members) {
    if (!m.bound() || m.deleting()) continue;
    h.nodes.push_back(m.pod.node_name);
    if (admission.empty()) admission = m.admission_id;
    if (AdmittedHere(m)) AddDeviceFaults(m, snapshot, now, h.device_faults);
  }
  h.members = static_cast<int>(h.nodes.size());
  h.min_members = terms.min_members;
  // Only a gang that ran whole can fall below its minimum (one still starting is the start timeout's).
  if (running.started && h.members < h.min_members) {
    h.below_minimum_since = model.below_minimum_since.emplace(running.name, now).first->second;
  } else {
    model.below_minimum_since.erase(running.name);
  }
  for (const RecordedMemberFault& f : member_faults_.Of(running.name)) {
    // A member of an earlier admission (one gangplank evicted itself) is no fault of this one.
    if (f.admission_id != admission) continue;
    h.member_faults.push_back({f.signal.pod, f.signal.node, CauseOf(f.signal.cause), f.signal.since.value_or(now)});
  }
  h.controller_mends_members = cache::ControllerMendsMembers(gang.identity);
  if (h.controller_mends_members && !h.member_faults.empty()) LeaveToController(model, gang, h.member_faults.front(), now);
  if (const RestartRecord* record = model.restarts.Find(running.name)) {
    h.restarts = record->restarts;
    if (record->last_restart_at > 0) h.last_restart_at = record->last_restart_at;
    h.failed = record->failed;
  }
  h.checkpoint_deadline = LatestAnnotatedTime(gang, cache::kCheckpointRequestedAnnotation);
  h.checkpoint_asked_for_fault = AnyMemberAnnotatedWith(gang, cache::kCheckpointCauseAnnotation, cache::kCheckpointCauseFault);
  h.checkpoint_done = AnyMemberAnnotated(gang, cache::kCheckpointDoneAnnotation);
  h.checkpoint_done_at = LatestAnnotatedTime(gang, cache::kCheckpointDoneAnnotation);
  return h;
}

bool GangRestarter::Due(PoolModel& model, const NodeFaultSnapshot& snapshot, bool changed, double now) const {
  if (changed || now >= model.fault_wakeup || now - model.last_fault_look >= kFaultLookSeconds) return true;
  if (!model.below_minimum_since.empty() || model.restarts.AnyRecovering()) return true;
  for (const std::string& key : member_faults_.Gangs()) {
    if (model.book.RunningIndex(key) >= 0) return true;
  }
  return model.state().Read([&](const cache::StateView& v) {
    for (const auto& [name, faulty] : snapshot) {
      if (v.FindNode(name) != engine::kNoNode) return true;
    }
    return false;
  });
}

RestartOutcome GangRestarter::Run(PoolModel& model, const NodeFaultSnapshot& snapshot, const QueueTree& tree,
                                  const std::function<GangTerms(const Gang&)>& terms, double now) {
  model.last_fault_look = now;
  std::map<std::string, std::shared_ptr<const Gang>> gangs;  // Shared snapshots: no gang is copied.
  for (const engine::RunningGang& running : model.book.input().running) {
    if (std::shared_ptr<const Gang> gang = tracker_.Share(running.name)) gangs.emplace(running.name, std::move(gang));
  }
  const std::vector<engine::NodeFault> nodes = NodeFaultsInPool(model, snapshot, HeldGpus(gangs), now);
  std::vector<engine::GangHealth> health;
  for (const engine::RunningGang& running : model.book.input().running) {
    const auto gang = gangs.find(running.name);
    if (gang == gangs.end()) continue;
    NoteRecovered(model, running, now);
    health.push_back(HealthOf(model, running, *gang->second, tree, terms(*gang->second), snapshot, now));
  }
  const engine::RecoveryPlan plan = engine::PlanGangRecovery(nodes, health, now);
  RestartOutcome outcome;
  for (const engine::RecoveryDecision& d : plan.decisions) Carry(model, *gangs.at(d.gang), d, now, outcome);
  for (const std::string& key : plan.withdrawn) WithdrawCheckpoint(model, *gangs.at(key));
  outcome.next_wakeup = plan.next_wakeup;
  return outcome;
}

void GangRestarter::Carry(PoolModel& model, const Gang& gang, const engine::RecoveryDecision& d, double now,
                          RestartOutcome& outcome) {
  switch (d.action) {
    case engine::RecoveryAction::kRequestCheckpoint:
      RequestCheckpoint(model, gang, d);
      ++outcome.checkpoints_requested;
      break;
    case engine::RecoveryAction::kRestart:
      Restart(model, gang, d, now);
      ++outcome.restarted;
      break;
    case engine::RecoveryAction::kFail:
      Fail(model, gang, d, now);
      ++outcome.failed;
      break;
    case engine::RecoveryAction::kWait:
      break;
  }
}

void GangRestarter::RequestCheckpoint(PoolModel& model, const Gang& gang, const engine::RecoveryDecision& d) {
  const std::string deadline = base::FormatEpochSeconds(d.deadline);
  const std::vector<cache::PodInfo> members = LiveMembers(gang);
  const int asked = op::RequestCheckpoint(writer_, members, deadline, cache::kCheckpointCauseFault,
                                          [&](const cache::PodInfo& pod) { assume_(model, pod); });
  conditions_.Event(gang, reasons::kWarning, reasons::kCheckpointRequested,
                    d.message + ": asked all " + std::to_string(asked) + " members to checkpoint by " + deadline +
                        " (annotation " + std::string(cache::kCheckpointRequestedAnnotation) + "; acknowledge with " +
                        std::string(cache::kCheckpointDoneAnnotation) + "), then the gang is restarted whole");
  if (metrics_ != nullptr) metrics_->FaultCheckpointRequested(model.config().name);
  spdlog::info(logging::JsonFields("asked a faulty gang to checkpoint", "pool", model.config().name, "gang", gang.key,
                                   "cause", d.message, "deadline", deadline));
}

void GangRestarter::WithdrawCheckpoint(PoolModel& model, const Gang& gang) {
  const std::vector<cache::PodInfo> members = LiveMembers(gang);
  const int written = op::WithdrawCheckpoint(writer_, members, [&](const cache::PodInfo& pod) { assume_(model, pod); });
  if (written == 0) return;
  conditions_.Event(gang, reasons::kNormal, reasons::kCheckpointWithdrawn,
                    "the fault it was asked to checkpoint for is gone: took the request back from " +
                        std::to_string(written) + " members; the gang runs on");
  spdlog::info(logging::JsonFields("took back a fault's checkpoint request", "pool", model.config().name, "gang", gang.key));
}

// The controller restarts the gang (or replaces the member): gangplank neither restarts nor charges it,
// and the pods the controller makes again wait in the gang's old place, as after a restart of its own.
void GangRestarter::LeaveToController(PoolModel& model, const Gang& gang, const engine::MemberFault& fault, double now) {
  if (const double arrival = ArrivalOf(gang); std::isfinite(arrival) && !model.requeued_arrivals.contains(gang.key)) {
    model.requeued_arrivals[gang.key] = {arrival, now};
  }
  // Its nodes are kept for it while the controller makes its pods again: freed by the restart, they
  // would otherwise go to whichever gang waits at that moment, and the gang would lose its place.
  PoolModel::ReturningHold hold{{fault.node}, now + kReturningHoldSeconds};
  for (const Member& m : gang.members) {
    if (m.bound()) hold.nodes.push_back(m.pod.node_name);
  }
  std::sort(hold.nodes.begin(), hold.nodes.end());
  hold.nodes.erase(std::unique(hold.nodes.begin(), hold.nodes.end()), hold.nodes.end());
  std::erase(hold.nodes, std::string());
  model.returning[gang.key] = std::move(hold);
  member_faults_.Clear(gang.key);
  conditions_.Event(gang, reasons::kNormal, reasons::kLeftToController,
                    engine::MemberFaultMessage(fault) + ": its " + gang.identity.kind + " " + gang.namespace_ + "/" +
                        gang.identity.name + " restarts or replaces it, so gangplank does not restart the gang " +
                        "nor count it against its restart limit; its nodes and place are kept for the pods made again");
  spdlog::info(logging::JsonFields("left a member's fault to the gang's controller", "pool", model.config().name, "gang",
                                   gang.key, "controller", gang.identity.kind, "fault", engine::MemberFaultMessage(fault)));
}

bool GangRestarter::EvictWhole(PoolModel& model, const Gang& gang, const std::string& why) {
  const std::vector<cache::PodInfo> pods = LiveMembers(gang);
  // A broken gang is no workload a budget protects, and a lost host cannot run an eviction: delete.
  const bool deleted = EvictGangOrDelete(writer_, pods).deleted;
  model.evicting.insert(gang.key);
  model.book.MarkTerminating(gang.key);
  member_faults_.Clear(gang.key);
  model.below_minimum_since.erase(gang.key);
  if (metrics_ != nullptr) metrics_->Evicted(model.config().name, why, deleted ? "deleted" : "evicted");
  return deleted;
}

void GangRestarter::Restart(PoolModel& model, const Gang& gang, const engine::RecoveryDecision& d, double now) {
  const int running = model.book.RunningIndex(gang.key);
  const double lost_hours = running < 0 ? 0 : engine::LostGpuSeconds(model.book.input().running[running], now) / 3600;
  const double arrival = ArrivalOf(gang);
  const bool deleted = EvictWhole(model, gang, "FaultRestart");
  if (std::isfinite(arrival)) model.requeued_arrivals[gang.key] = {arrival, now};
  RestartRecord& r = model.restarts.At(gang.key);
  // Only the gang's own failures count against its limit and backoff; a node's fault is the cluster's.
  if (d.charged) {
    ++r.restarts;
    r.last_restart_at = now;
  }
  r.fault_at = d.fault_since > 0 ? d.fault_since : now;
  r.cause = std::string(engine::FaultCauseName(d.cause));
  r.message = d.message;
  r.avoid_nodes = d.avoid_nodes;
  r.running_again = false;
  model.restarts_changed = true;
  std::string avoiding;
  for (const std::string& n : d.avoid_nodes) avoiding += (avoiding.empty() ? "" : ", ") + n;
  conditions_.Event(gang, reasons::kWarning, reasons::kGangRestarted,
                    d.message + ": restarted the gang whole (" +
                        (d.charged ? "restart " + std::to_string(r.restarts) : std::string("the node's fault, not counted")) + ", " +
                        (d.checkpointed ? "after its checkpoint" : "without a checkpoint") + "), " +
                        (deleted ? "deleted" : "evicted") + " all members, requeued in its place" +
                        (avoiding.empty() ? "" : " away from " + avoiding) + "; lost " + Fixed(lost_hours, "%.2f") +
                        " GPU-hours");
  if (metrics_ != nullptr) metrics_->GangRestarted(model.config().name, r.cause, lost_hours);
  spdlog::info(logging::JsonFields("restarted a gang after a fault", "pool", model.config().name, "gang", gang.key,
                                   "cause", r.cause, "message", d.message, "restarts", std::to_string(r.restarts)));
}

void GangRestarter::Fail(PoolModel& model, const Gang& gang, const engine::RecoveryDecision& d, double now) {
  EvictWhole(model, gang, "FaultFailed");
  RestartRecord& r = model.restarts.At(gang.key);
  r.failed = true;
  r.last_restart_at = std::max(r.last_restart_at, now);
  r.cause = std::string(engine::FaultCauseName(d.cause));
  r.message = d.message;
  model.restarts_changed = true;
  model.requeued_arrivals.erase(gang.key);
  conditions_.Event(gang, reasons::kWarning, reasons::kGangFailed,
                    d.message + ": the gang is failed and not run again (delete its owner to free the record)");
  conditions_.Blocked(gang, reasons::kGangFailed, d.message);
  if (metrics_ != nullptr) metrics_->GangFailed(model.config().name, r.cause);
  spdlog::info(logging::JsonFields("failed a gang after a fault", "pool", model.config().name, "gang", gang.key,
                                   "cause", r.cause, "message", d.message));
}

}  // namespace gangplank::op

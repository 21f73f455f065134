#include "operator/admission/reconciler.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <charconv>
#include <cmath>
#include <exception>
#include <limits>
#include <set>

#include "base/parallel_tasks.h"
#include "base/time_format.h"
#include "cache/objects/conventions.h"
#include "engine/admission/admission_round.h"
#include "engine/admission/decision_text.h"
#include "engine/admission/recent_evictions.h"
#include "engine/admission/round_scope.h"
#include "engine/policies/fragmentation/pool_fragmentation.h"
#include "engine/policies/registry.h"
#include "logging/json_log.h"
#include "operator/admission/admission_commit.h"
#include "operator/admission/runtime_predictions.h"
#include "operator/autoscaling/capacity_asks.h"
#include "operator/gangs/admission_id.h"
#include "operator/gangs/gang_annotations.h"
#include "operator/writer/checkpoint_request.h"
#include "operator/writer/gang_eviction.h"
#include "operator/model/gang_entries.h"
#include "operator/model/pool_admission_config.h"
#include "operator/model/gang_route.h"
#include "operator/model/ungoverned_entry.h"
#include "operator/status/pool_status.h"
#include "operator/reasons.h"

namespace gangplank::op {

// Operator-level blocks found while refreshing, said after the round.
struct Reconciler::Pending {
  PoolChanges changes;
  std::map<std::string, std::pair<std::string, std::string>> blocks;  // Key -> (reason, message).
  std::vector<std::string> refreshed;                                 // Gangs whose entries were rebuilt.
  bool again = false;
};

// The round's decision with everything that must be read under the state's lock already read: the
// keys behind every index and the names behind every node id.
struct RoundResult {
  engine::AdmissionDecision decision;
  std::vector<std::string> admitted_keys;
  std::vector<std::vector<std::string>> admitted_nodes;  // Per admitted gang, per MemberAllocation.
  std::vector<std::string> reclaim_keys;
  std::vector<std::string> beneficiary_keys;              // Parallel to reclaim_keys ("" for none).
  std::vector<std::string> blocked_keys;
  std::vector<std::pair<std::string, PoolModel::Reservation>> reservations;
  std::vector<CapacityAsk> capacity_asks;  // Autoscaled pools: the nodes each gang without room needs.
};

namespace {

double Seconds(std::chrono::steady_clock::duration d) { return std::chrono::duration<double>(d).count(); }

// The gang's own timeout (annotation) or the pool's; 0 means none.
double GangTimeout(const Gang& gang, const cache::PoolConfig& pool) {
  for (const Member& m : gang.members) {
    const std::string text = m.pod.Annotation(cache::kGangTimeoutAnnotation);
    int seconds = 0;
    if (!text.empty() && std::from_chars(text.data(), text.data() + text.size(), seconds).ec == std::errc() && seconds > 0) {
      return seconds;
    }
  }
  return pool.admission.gang_timeout_seconds;
}

}  // namespace

Reconciler::Reconciler(GangTracker& tracker, GangSizeResolver& sizes, ClusterWriter& writer, GangConditions& conditions,
                       OperatorMetrics* metrics, MemberFaults& member_faults, ReconcilerOptions options)
    : tracker_(tracker), sizes_(sizes), writer_(writer), conditions_(conditions), metrics_(metrics),
      options_(std::move(options)), rng_(options_.seed),
      spot_(tracker, writer, conditions, metrics, [this](PoolModel& model, const cache::PodInfo& pod) { Assume(model, pod); },
            options_.spot_eviction_margin_seconds),
      faults_(tracker, writer, conditions, metrics, member_faults,
              [this](PoolModel& model, const cache::PodInfo& pod) { Assume(model, pod); }),
      usage_(tracker, metrics != nullptr ? &metrics->usage() : nullptr),
      idle_(tracker, writer, conditions, metrics != nullptr ? &metrics->usage() : nullptr,
            [this](PoolModel& model, const cache::PodInfo& pod) { Assume(model, pod); }, options_.idle_max_gap_seconds) {}

double Reconciler::NextWakeup(const PoolModel& model) const {
  const double capacity = capacity_ != nullptr ? capacity_->NextDeadline(model.config().name, model.config())
                                               : std::numeric_limits<double>::infinity();
  return std::min({model.next_wakeup, model.spot_wakeup, model.fault_wakeup, model.idle_wakeup, capacity});
}

void Reconciler::SeedFromStatus(PoolModel& model, const ReconcileContext& context) {
  if (model.status_seeded || !context.pool_object) return;
  // A new model (a new leader, a changed pool) carries on with the restart records and the usage the
  // GPUPool's status keeps.
  model.status_seeded = true;
  const std::string text = context.pool_object(model.config().name);
  const nlohmann::json pool = nlohmann::json::parse(text.empty() ? "{}" : text, nullptr, false);
  if (!pool.is_object() || !pool.contains("status") || !pool["status"].is_object()) return;
  const nlohmann::json& status = pool["status"];
  model.restarts = RestartBook::FromStatus(status.value("gangRestarts", nlohmann::json::array()));
  RestoreUsage(model.usage.ledger, status.value("usage", nlohmann::json()));
  if (model.runtimes.predictor) {
    RestoreRuntimes(*model.runtimes.predictor, status.value("runtimes", nlohmann::json()));
    model.runtimes.backfills = RestoreBackfills(status.value("backfills", nlohmann::json()));
    model.runtimes.learnt = true;
  }
}

void Reconciler::JudgeUtilization(PoolModel& model, const ReconcileContext& context, RoundReport& report) {
  const PodUtilizationSnapshot* snapshot = nullptr;
  if (context.utilization) {
    if (const auto it = context.utilization->find(model.config().name); it != context.utilization->end()) {
      snapshot = it->second.get();
    }
  }
  usage_.Count(model, snapshot, context.now);
  const IdleOutcome idle = idle_.Run(model, snapshot, *context.tree, context.now);
  model.idle_wakeup = std::isfinite(idle.next_wakeup) ? idle.next_wakeup : 1e300;
  report.evicted += idle.reclaimed;
}

void Reconciler::RecoverFaults(PoolModel& model, const ReconcileContext& context, bool changed, RoundReport& report) {
  model.restarts.Prune(context.now, [&](const std::string& key) { return tracker_.Has(key); });
  static const NodeFaultSnapshot kNone;
  const auto terms = [this](const Gang& gang) {
    const SizeVerdict size = sizes_.SizeOf(gang);
    if (!size.size) return GangTerms{static_cast<int>(gang.members.size()), false};
    return GangTerms{size.size->min_members, size.size->disrupt_whole};
  };
  const NodeFaultSnapshot& nodes = context.node_faults ? *context.node_faults : kNone;
  if (!faults_.Due(model, nodes, changed, context.now)) return;
  const RestartOutcome outcome = faults_.Run(model, nodes, *context.tree, terms, context.now);
  model.fault_wakeup = std::isfinite(outcome.next_wakeup) ? outcome.next_wakeup : 1e300;
  report.evicted += outcome.restarted + outcome.failed;
}

void Reconciler::Assume(PoolModel& model, const cache::PodInfo& pod) {
  // The written pod is the truth now: our caches hold it before the informer reports it.
  tracker_.Upsert(pod);
  try {
    model.state().UpsertPod(pod);
  } catch (const std::exception& e) {
    spdlog::warn(logging::JsonFields("cannot assume pod", "pod", pod.namespace_ + "/" + pod.name, "error", e.what()));
  }
}

bool Reconciler::Recover(PoolModel& model, const Gang& gang, int min_members) {
  const Recovery recovery = RecoveryFor(gang, min_members);
  if (recovery == Recovery::kNone) return false;
  std::vector<cache::PodInfo> planned;
  std::string id;
  for (const Member& m : gang.members) {
    if (m.gated && !m.admission_id.empty() && !m.planned_node.empty() && !m.deleting()) {
      planned.push_back(m.pod);
      id = m.admission_id;
    }
  }
  // The pool that holds the plan's reservations recovers it, once.
  const bool here = model.state().Read([&](const cache::StateView& v) {
    const cache::PodRecord* r = v.FindPod(planned.front().uid);
    return r != nullptr && r->allocation.has_value();
  });
  if (!here) return false;
  auto assume = [&](const cache::PodInfo& pod) { Assume(model, pod); };
  if (recovery == Recovery::kFinishRelease) {
    const int released = ReleaseMembers(writer_, planned, id, assume);
    spdlog::info(logging::JsonFields("resumed a whole admission left by a stopped leader", "pool", model.config().name,
                                     "gang", gang.key, "admission", id, "released", std::to_string(released)));
    conditions_.Event(gang, reasons::kNormal, reasons::kAdmissionResumed,
                      "admission " + id + " was written whole before a restart; released " + std::to_string(released) +
                          " of " + std::to_string(planned.size()) + " gated members");
  } else {
    RollBackPlan(writer_, planned, assume);
    spdlog::info(logging::JsonFields("rolled back a half-written admission", "pool", model.config().name, "gang",
                                     gang.key, "planned", std::to_string(planned.size())));
    conditions_.Event(gang, reasons::kWarning, reasons::kAdmissionRolledBack,
                      "found a half-written admission (" + std::to_string(planned.size()) +
                          " members planned, the rest not); took it back to plan the gang again whole");
  }
  return true;
}

void Reconciler::RefreshUngoverned(PoolModel& model, const ReconcileContext& context, const std::string& key) {
  const std::string namespace_(NamespaceOfUngovernedKey(key));
  const std::string queue = context.namespace_queue ? context.namespace_queue(namespace_) : "";
  std::optional<engine::RunningGang> entry;
  if (!queue.empty() && context.ungoverned != nullptr) {
    const int known = model.book.RunningIndex(key);
    const double start = known >= 0 ? model.book.input().running[known].start : context.now;
    const std::vector<std::string> uids = context.ungoverned->UidsIn(namespace_);
    entry = model.state().Read([&](const cache::StateView& v) { return BuildUngovernedEntry(key, queue, uids, v, start); });
  }
  model.book.Set(key, std::nullopt, std::move(entry));
}

void Reconciler::RefreshGang(PoolModel& model, const ReconcileContext& context, const std::string& key, Pending& pending) {
  if (IsUngovernedKey(key)) return RefreshUngoverned(model, context, key);
  const cache::PoolConfig& pool = model.config();
  // The tracker's snapshot, not a copy: copying every touched gang was 7% of the operator's CPU.
  std::shared_ptr<const Gang> gang = tracker_.Share(key);
  if (!gang) {
    LearnIfEnded(model, key, false, context.now);
    model.runtimes.Forget(key);
    model.book.Remove(key);
    model.reservations.erase(key);
    model.evicting.erase(key);
    model.shielded.erase(key);
    if (!context.pools.empty() && context.pools.front().name == pool.name) conditions_.Forget(key);
    return;
  }
  SizeVerdict size = sizes_.SizeOf(*gang);
  if (Recover(model, *gang, size.size ? size.size->min_members : static_cast<int>(gang->members.size()))) {
    pending.again = true;
    gang = tracker_.Share(key);
    if (!gang) return;
  }
  const GangRoute route = RouteGang(*gang, context.pools, *context.tree,
                                    context.namespace_queue ? context.namespace_queue(gang->namespace_) : "",
                                    context.queues, size.size ? size.size->priority : std::nullopt);
  const bool mine = route.choice.pool == pool.name;
  // A gang no pool can take is reported by the first pool, so one voice says why.
  const bool reporter =
      mine || (route.choice.pool.empty() && !context.pools.empty() && context.pools.front().name == pool.name);
  EntryContext entry = EntryContextFor(route, *context.tree, pool.name, size);
  entry.gang_timeout_seconds = GangTimeout(*gang, pool);
  // Only a native PodGroup's pods are placed in the scheduler's PodGroup cycle.
  entry.native_gang_cycle = options_.native_gang_cycle && gang->identity.source == cache::GangSource::kNativePodGroup;
  entry.movable = pool.preemption.consolidation.enabled;
  if (auto it = model.requeued_arrivals.find(key); it != model.requeued_arrivals.end()) entry.requeued_arrival = it->second.arrival;
  GangEntries entries = model.state().Read([&](const cache::StateView& v) { return BuildGangEntries(*gang, entry, v); });
  PredictEntries(model.runtimes, *gang, entries, context.now);
  LearnIfEnded(model, key, entries.running.has_value(), context.now);

  if (entries.running) {
    auto shield = model.shielded.find(key);
    if (shield != model.shielded.end() && shield->second <= context.now) {
      model.shielded.erase(shield);
      shield = model.shielded.end();
    }
    if (shield != model.shielded.end() || model.evicting.count(key)) entries.running->terminating = true;
  } else {
    model.evicting.erase(key);
  }
  if (const RestartRecord* r = model.restarts.Find(key); r != nullptr && r->failed && entries.waiting) {
    // Failed for good by fault recovery: its pods wait until its owner goes.
    entries.waiting.reset();
    entries.block_reason = r->cause == kIdleReclaimCause ? reasons::kIdleReclaimed : reasons::kGangFailed;
    entries.block_message = r->message;
  }
  model.book.Set(key, mine ? std::move(entries.waiting) : std::nullopt, std::move(entries.running),
                 mine ? std::move(entries.waiting_pods) : std::vector<cache::PodInfo>{});
  if (!entries.block_reason.empty() && reporter) {
    pending.blocks[key] = {entries.block_reason, entries.block_message};
  }
  pending.refreshed.push_back(key);
}

void Reconciler::Refresh(PoolModel& model, const ReconcileContext& context, Pending& pending) {
  pending.changes = model.TakeChanges();
  PoolChanges& changes = pending.changes;
  const std::uint64_t generation = model.state().Read([](const cache::StateView& v) { return v.generation(); });
  bool sweep = changes.queues_changed;
  if (generation != model.state_generation || !model.policy) {
    // The state was rebuilt (node ids and allocations made afresh): every entry and the policy's memos
    // refer to the old one.
    model.state_generation = generation;
    const std::vector<engine::PodRequest> workload =
        model.state().Read([](const cache::StateView& v) { return v.HeldRequests(kPolicyWorkloadSample); });
    model.policy = engine::policies::MakePolicy(options_.policy, workload, options_.seed);
    changes.capacity_freed = true;
    sweep = true;
  }
  if (changes.queues_changed) model.book.SetQueues(QueuesForPool(*context.tree, model.config().name));
  if (sweep) {
    for (const std::string& key : tracker_.Keys()) changes.gangs.insert(key);
    if (context.ungoverned != nullptr) {
      for (const std::string& ns : context.ungoverned->Namespaces()) changes.gangs.insert(UngovernedKey(ns));
    }
    for (size_t i = 0; i < model.book.running_count(); ++i) changes.gangs.insert(model.book.RunningKey(static_cast<int>(i)));
    for (size_t i = 0; i < model.book.waiting_count(); ++i) changes.gangs.insert(model.book.WaitingKey(static_cast<int>(i)));
  }
  for (const std::string& key : changes.gangs) RefreshGang(model, context, key, pending);
  model.ForgetStalePlaces(context.now, [&](const std::string& key) { return tracker_.Has(key); });
}

RoundReport Reconciler::Reconcile(PoolModel& model, const ReconcileContext& context) {
  RoundReport report;
  Pending pending;
  Refresh(model, context, pending);
  const PoolChanges& changes = pending.changes;
  if (context.notices) {
    const SpotOutcome spot = spot_.Run(model, *context.notices, context.now);
    model.spot_wakeup = std::isfinite(spot.next_wakeup) ? spot.next_wakeup : 1e300;
    report.evicted += spot.evicted;
  } else {
    model.spot_wakeup = 1e300;
  }
  if (context.tree) SeedFromStatus(model, context);
  if (context.tree) RecoverFaults(model, context, changes.nodes_changed || changes.queues_changed, report);
  if (context.tree) JudgeUtilization(model, context, report);

  engine::ScopeSignals signals;
  signals.capacity_freed = changes.capacity_freed;
  signals.queues_changed = changes.queues_changed;
  signals.running_changed = changes.running_changed;
  signals.now = context.now;
  signals.last_full_round = model.last_full_round;
  // A capacity request due (timed out, or its nodes settled) is judged by a full round.
  signals.next_wakeup = capacity_ != nullptr
                            ? std::min(model.next_wakeup, capacity_->NextDeadline(model.config().name, model.config()))
                            : model.next_wakeup;
  signals.max_staleness_seconds = options_.max_staleness_seconds;
  const bool full = engine::NeedsFullRound(signals);

  Repredict(model.runtimes, model.book, context.now, full);
  engine::AdmissionInput& input = model.book.input();
  input.now = context.now;
  const engine::AdmissionConfig config = AdmissionConfigFor(model.config());
  engine::PruneRecentEvictions(model.recent_evictions, context.now, config.reclaim.window_seconds);
  input.recent_evictions = model.recent_evictions;
  input.plan_only.reset();
  if (!full) {
    std::vector<int> changed;
    for (const std::string& key : pending.refreshed) {
      if (const int w = model.book.WaitingIndex(key); w >= 0) changed.push_back(w);
    }
    std::sort(changed.begin(), changed.end());
    changed.erase(std::unique(changed.begin(), changed.end()), changed.end());
    if (changed.empty() && model.reservations.empty()) {
      SayWhy(model, RoundResult{}, pending, {});
      report.next_wakeup = NextWakeup(model);
      report.again = pending.again;
      return report;
    }
    input.plan_only = std::move(changed);
  }

  RoundResult round;
  const double returning_ends = model.SettleReturning(context.now);
  const auto started = std::chrono::steady_clock::now();
  model.state().Plan([&](engine::Cluster& cluster, const cache::StateView& view) {
    input.reservations = model.HeldReservations(view);
    input.returning_nodes = model.ReturningNodes(view);
    round.decision = engine::DecideAdmission(cluster, input, config, *model.policy, rng_);
    for (const engine::Admitted& a : round.decision.admitted) {
      round.admitted_keys.push_back(model.book.WaitingKey(a.waiting));
      std::vector<std::string> nodes;
      for (const engine::MemberAllocation& m : a.plan.allocations) nodes.push_back(cluster.spec(m.allocation.node).name);
      round.admitted_nodes.push_back(std::move(nodes));
    }
    for (const engine::Reclaimed& r : round.decision.reclaims) {
      round.reclaim_keys.push_back(model.book.RunningKey(r.running));
      round.beneficiary_keys.push_back(r.beneficiary >= 0 ? model.book.WaitingKey(r.beneficiary) : std::string());
    }
    for (const engine::Blocked& b : round.decision.blocked) {
      // Gangs an incremental round did not look at keep their condition: no key needed.
      round.blocked_keys.push_back(b.code == engine::BlockCode::kNotReplanned ? std::string() : model.book.WaitingKey(b.waiting));
    }
    for (const engine::Reserved& r : round.decision.reservations) {
      PoolModel::Reservation kept;
      kept.for_reclaim = r.for_reclaim;
      for (engine::NodeId n : r.nodes) kept.nodes.push_back(cluster.spec(n).name);
      round.reservations.emplace_back(model.book.WaitingKey(r.waiting), std::move(kept));
    }
    if (capacity_ != nullptr) {
      round.capacity_asks = CapacityAsksOf(model.config(), cluster, input, round.decision,
                                           [&](int w) { return model.book.WaitingKey(w); });
    }
  });
  report.seconds = Seconds(std::chrono::steady_clock::now() - started);
  report.ran = true;
  report.full = full;
  if (full) model.last_full_round = context.now;
  // A hold that ends frees its nodes for the gangs waiting: a full round then.
  model.next_wakeup = std::min(round.decision.next_wakeup, returning_ends);
  if (metrics_ != nullptr) metrics_->Reconciled(full, report.seconds);
  for (const std::string& e : round.decision.errors) {
    spdlog::debug(logging::JsonFields("gang left out of the round", "pool", model.config().name, "why", e));
  }

  model.reservations.clear();
  for (auto& [key, r] : round.reservations) model.reservations[key] = std::move(r);
  ApplyEvictions(model, context, round, report);
  ApplyAdmissions(model, context, round, report);
  std::map<std::string, CapacityNote> capacity_notes;
  if (capacity_ != nullptr) {
    std::set<std::string> waiting;
    for (size_t w = 0; w < input.waiting.size(); ++w) waiting.insert(model.book.WaitingKey(static_cast<int>(w)));
    const std::set<std::string> admitted(round.admitted_keys.begin(), round.admitted_keys.end());
    for (const std::string& key : admitted) waiting.erase(key);
    capacity_notes =
        capacity_->Reconcile(model.config().name, model.config(), round.capacity_asks, waiting, admitted, context.now);
  }
  SayWhy(model, round, pending, capacity_notes);
  Figures(model, context, round);
  report.next_wakeup = NextWakeup(model);
  report.again = report.again || pending.again;
  return report;
}

namespace {

// The eviction's reason as the victim's namespace reads it: another namespace's gang that benefits is
// another tenant's business, named by its queue only (review item L5).
std::string ForVictimsNamespace(std::string reason, const std::string& victim_key, const std::string& beneficiary_key) {
  const auto ns = [](const std::string& key) { return key.substr(0, key.find('/')); };
  if (beneficiary_key.empty() || ns(beneficiary_key) == ns(victim_key)) return reason;
  for (size_t at = reason.find(beneficiary_key); at != std::string::npos; at = reason.find(beneficiary_key, at)) {
    reason.replace(at, beneficiary_key.size(), "a gang of another namespace");
  }
  return reason;
}

}  // namespace

void Reconciler::ApplyEvictions(PoolModel& model, const ReconcileContext& context, const RoundResult& round,
                                RoundReport& report) {
  const std::string& pool = model.config().name;
  for (size_t i = 0; i < round.decision.reclaims.size(); ++i) {
    const engine::Reclaimed& r = round.decision.reclaims[i];
    const std::string& key = round.reclaim_keys[i];
    const std::string kind(engine::EvictionKindName(r.kind));
    const std::shared_ptr<const Gang> gang = tracker_.Share(key);
    if (!gang) continue;
    if (r.kind == engine::EvictionKind::kBackfillOverrun && !OverrunDue(model, *gang, r.reason, context.now)) continue;
    std::vector<cache::PodInfo> pods;
    double arrival = std::numeric_limits<double>::infinity();
    model.state().Read([&](const cache::StateView& v) {
      for (const Member& m : gang->members) {
        const cache::PodRecord* record = v.FindPod(m.pod.uid);
        if (record == nullptr || !record->allocation || m.deleting()) continue;
        pods.push_back(m.pod);
        arrival = std::min(arrival, m.created);
      }
    });
    const GangEviction eviction = EvictGang(writer_, pods);
    if (eviction.outcome == GangEviction::Outcome::kBlocked) {
      model.shielded[key] = context.now + options_.shield_seconds;
      model.book.MarkTerminating(key);  // Not chosen again while shielded.
      if (!round.beneficiary_keys[i].empty()) model.reservations.erase(round.beneficiary_keys[i]);
      conditions_.Event(*gang, reasons::kWarning, reasons::kEvictionBlocked, "not evicted (" + kind + "): " + eviction.reason);
      if (metrics_ != nullptr) metrics_->Evicted(pool, kind, "blocked");
      continue;
    }
    model.evicting.insert(key);
    model.book.MarkTerminating(key);
    if (engine::Budgeted(r.kind)) model.recent_evictions.push_back(context.now);
    if (r.kind == engine::EvictionKind::kBackfillOverrun) model.runtimes.backfills[key].overran = true;
    // Its pods come back (their owner recreates them) and wait again in their old place.
    if (std::isfinite(arrival)) model.requeued_arrivals[key] = {arrival, context.now};
    conditions_.Event(*gang, reasons::kWarning, std::string(engine::EvictionKindName(r.kind)),
                      ForVictimsNamespace(r.reason, key, round.beneficiary_keys[i]) +
                          (eviction.outcome == GangEviction::Outcome::kPartial ? "; " + eviction.reason : ""));
    if (metrics_ != nullptr) metrics_->Evicted(pool, kind, eviction.outcome == GangEviction::Outcome::kPartial ? "partial" : "evicted");
    spdlog::info(logging::JsonFields("evicted gang", "pool", pool, "gang", key, "kind", kind, "reason", r.reason));
    ++report.evicted;
  }
}

// One admitted gang's writes, prepared before any is sent.
struct Reconciler::AdmissionWrite {
  std::vector<PlannedMember> members;
  PoolModel::ReturningHold later;  // Nodes held for members its controller has not made yet.
  std::string id;
  CommitResult commit;
  std::exception_ptr failure;  // A write that threw (not leading, the API server unreachable).
};

Reconciler::AdmissionWrite Reconciler::PrepareAdmission(const PoolModel& model, const ReconcileContext& context,
                                                        const RoundResult& round, size_t i) const {
  const engine::Admitted& a = round.decision.admitted[i];
  const std::vector<cache::PodInfo>& pods = model.book.WaitingPods(round.admitted_keys[i]);
  const engine::WaitingGang& waiting = model.book.input().waiting[a.waiting];
  AdmissionWrite write;
  write.later = {{}, context.now + kLaterMembersHoldSeconds};
  for (size_t j = 0; j < a.plan.allocations.size(); ++j) {
    const int member = a.plan.allocations[j].member;
    if (member >= static_cast<int>(pods.size())) write.later.nodes.push_back(round.admitted_nodes[i][j]);  // Not made yet.
    if (member < 0 || member >= static_cast<int>(pods.size())) continue;
    write.members.push_back(PlannedMember{pods[member], round.admitted_nodes[i][j], std::nullopt});
    // An autoscaler's consolidation or drift would take one member's node alone and stall the rest.
    write.members.back().keep_node = model.config().autoscaling.enabled && a.plan.allocations.size() > 1;
    // A backfill onto another gang's reservation earned it by its declared runtime: Kubernetes holds it
    // to that (a member that declared its own activeDeadlineSeconds is held to it already).
    if (a.on_reserved && waiting.expected_runtime && !pods[member].active_deadline_seconds) {
      write.members.back().active_deadline_seconds = static_cast<std::int64_t>(std::ceil(*waiting.expected_runtime));
    }
  }
  write.id = NewAdmissionId(context.now);
  return write;
}

// The round's gangs are committed side by side, up to options_.admission_writers at once: each commit
// waits on the API server, and gangs of one round never share a member. What the commits mean for the
// pool is then recorded in round order, as if they had been written one after another.
void Reconciler::ApplyAdmissions(PoolModel& model, const ReconcileContext& context, const RoundResult& round,
                                 RoundReport& report) {
  std::vector<AdmissionWrite> writes;
  for (size_t i = 0; i < round.decision.admitted.size(); ++i) writes.push_back(PrepareAdmission(model, context, round, i));
  auto assume = [&](const cache::PodInfo& pod) { Assume(model, pod); };
  base::RunTasks(writes.size(), options_.admission_writers, [&](size_t i) {
    try {
      writes[i].commit = CommitAdmission(writer_, writes[i].members, writes[i].id, assume);
    } catch (...) {
      writes[i].failure = std::current_exception();
    }
  });
  std::exception_ptr first_failure;
  for (size_t i = 0; i < writes.size(); ++i) {
    if (writes[i].failure) {
      if (!first_failure) first_failure = writes[i].failure;
      continue;
    }
    RecordAdmission(model, context, round, i, writes[i], report);
  }
  if (first_failure) std::rethrow_exception(first_failure);  // After every other gang is recorded.
}

void Reconciler::RecordAdmission(PoolModel& model, const ReconcileContext& context, const RoundResult& round, size_t i,
                                 AdmissionWrite& write, RoundReport& report) {
  const std::string& pool = model.config().name;
  const engine::Admitted& a = round.decision.admitted[i];
  const std::string& key = round.admitted_keys[i];
  const engine::WaitingGang& waiting = model.book.input().waiting[a.waiting];
  const std::string queue = waiting.request.queue;
  // On nodes reserved for another on its predicted runtime: it must be gone by then.
  // (A plain number: GCC 12 misreads an optional copied here as maybe uninitialized.)
  const double predicted = a.by_prediction && waiting.predicted_runtime ? *waiting.predicted_runtime : -1;
  const double arrival = waiting.arrival;
  const CommitResult& commit = write.commit;
  const std::shared_ptr<const Gang> gang = tracker_.Share(key);
  if (!commit.committed) {
    ++report.conflicts;
    report.again = true;
    model.NoteCapacityFreed();  // The next round re-plans from what the API server says now.
    if (metrics_ != nullptr) metrics_->AdmissionConflict(pool);
    spdlog::info(logging::JsonFields("admission rolled back; planning again", "pool", pool, "gang", key, "error", commit.error));
    return;
  }
  if (!commit.error.empty()) {
    spdlog::warn(logging::JsonFields("admitted gang not fully released yet", "pool", pool, "gang", key, "error", commit.error));
    report.again = true;
  }
  ++report.admitted;
  if (predicted >= 0) {
    model.runtimes.backfills[key] = PredictedBackfill{context.now + predicted, false, 0};
    if (metrics_ != nullptr) metrics_->PredictedBackfill(pool);
  }
  model.requeued_arrivals.erase(key);
  model.reservations.erase(key);
  model.returning.erase(key);
  std::string reason = a.reason;
  if (!write.later.nodes.empty()) {
    reason += "; " + std::to_string(write.later.nodes.size()) + " of its members are made by its controller once this one is placed: " +
              "their nodes are held for them until " + base::FormatEpochSeconds(write.later.until);
    model.returning[key] = std::move(write.later);
  }
  model.NoteGang(key);  // Its entries move from waiting to running.
  if (gang) {
    conditions_.Admitted(*gang, predicted >= 0 ? reason + "; gangs like it ran at most " + engine::RoughDuration(predicted) +
                                                " in " + std::to_string(std::lround(model.runtimes.quantile * 100)) + "%" +
                                                " of cases, so it is asked to checkpoint and ended if it still runs at " +
                                                base::FormatEpochSeconds(context.now + predicted)
                                          : reason,
                           predicted >= 0 || a.on_reserved || a.plan.allocations.size() > 1);
  }
  if (metrics_ != nullptr) metrics_->Admitted(pool, queue, std::max(0.0, context.now - arrival));
  spdlog::info(logging::JsonFields("admitted gang", "pool", pool, "gang", key, "admission", write.id, "reason", reason));
}

void Reconciler::LearnIfEnded(PoolModel& model, const std::string& key, bool still_running, double now) {
  if (still_running || model.evicting.count(key) > 0) return;
  const int r = model.book.RunningIndex(key);
  if (r < 0) return;
  const double seconds = LearnEnded(model.runtimes, key, model.book.input().running[r], now);
  if (auto b = model.runtimes.backfills.find(key); b != model.runtimes.backfills.end() && !b->second.overran) {
    model.runtimes.backfills.erase(b);  // Left in time (or was not held to it): nothing to end.
  }
  if (seconds > 0 && metrics_ != nullptr) metrics_->RuntimeLearnt(model.config().name, seconds);
}

bool Reconciler::OverrunDue(PoolModel& model, const Gang& gang, const std::string& reason, double now) {
  const double grace = model.config().admission.prediction.checkpoint_grace_seconds;
  PredictedBackfill& b = model.runtimes.backfills[gang.key];
  if (grace > 0 && b.checkpoint_deadline <= 0) {
    b.checkpoint_deadline = now + grace;
    const std::string deadline = base::FormatEpochSeconds(b.checkpoint_deadline);
    RequestCheckpoint(writer_, LiveMembers(gang), deadline, cache::kCheckpointCauseBackfillOverrun,
                      [&](const cache::PodInfo& pod) { Assume(model, pod); });
    conditions_.Event(gang, reasons::kWarning, reasons::kCheckpointRequested,
                      reason + ": checkpoint by " + deadline + " (annotate any member " +
                          std::string(cache::kCheckpointDoneAnnotation) + "), then the gang is ended whole and requeued");
    model.next_wakeup = std::min(model.next_wakeup, b.checkpoint_deadline);
    return false;
  }
  if (grace > 0 && now < b.checkpoint_deadline) {
    const std::optional<double> done = LatestAnnotatedTime(gang, cache::kCheckpointDoneAnnotation);
    // Annotation times have whole seconds: an acknowledgement in the request's own second counts.
    if (!done || *done < std::floor(b.checkpoint_deadline - grace)) {
      model.next_wakeup = std::min(model.next_wakeup, b.checkpoint_deadline);
      return false;
    }
  }
  return true;
}

void Reconciler::SayWhy(PoolModel& model, const RoundResult& round, const Pending& pending,
                        const std::map<std::string, CapacityNote>& capacity_notes) {
  (void)model;
  for (size_t i = 0; i < round.decision.blocked.size(); ++i) {
    const engine::Blocked& b = round.decision.blocked[i];
    if (b.code == engine::BlockCode::kNotReplanned) continue;  // Its last reason still holds.
    std::string reason(engine::BlockCodeName(b.code));
    std::string message = b.message;
    const auto note = capacity_notes.find(round.blocked_keys[i]);
    if (note != capacity_notes.end()) {
      // Nodes are asked for it: that is the news, with the round's reason after it.
      reason = note->second.reason;
      message = note->second.message + " (" + b.message + ")";
    }
    // Most waiting gangs wait for the same reason round after round: no copy of the gang for those.
    if (conditions_.Says(round.blocked_keys[i], reason, message)) continue;
    if (const std::shared_ptr<const Gang> gang = tracker_.Share(round.blocked_keys[i])) {
      conditions_.Blocked(*gang, reason, message);
      // A failure is also a Warning Event, once each time the condition comes to say it.
      if (note != capacity_notes.end() && note->second.warning) conditions_.Event(*gang, "Warning", reason, message);
    }
  }
  for (const auto& [key, block] : pending.blocks) {
    if (conditions_.Says(key, block.first, block.second)) continue;
    if (const std::shared_ptr<const Gang> gang = tracker_.Share(key)) conditions_.Blocked(*gang, block.first, block.second);
  }
}

void Reconciler::Figures(PoolModel& model, const ReconcileContext& context, const RoundResult& round) {
  const engine::AdmissionInput& input = model.book.input();
  std::map<std::string, QueueFigures> figures;
  for (size_t q = 0; q < input.queues.size(); ++q) {
    QueueFigures& f = figures[input.queues[q].name];
    if (q < round.decision.fair_shares.size()) f.fair_share = round.decision.fair_shares[q];
    if (input.held && q < input.held->size()) f.used = (*input.held)[q];
    f.used_gpu_hours = model.usage.ledger.GpuHours(input.queues[q].name, context.now);
    if (model.usage.ledger.config().enabled()) f.decayed_usage = model.usage.ledger.DecayedGpus(input.queues[q].name, context.now);
  }
  for (const engine::WaitingGang& w : input.waiting) {
    QueueFigures& f = figures[w.request.queue];
    ++f.pending;
    f.oldest_pending_seconds = std::max(f.oldest_pending_seconds, context.now - w.arrival);
  }
  model.queue_figures = std::move(figures);
  if (metrics_ != nullptr) {
    for (const auto& [queue, f] : model.queue_figures) {
      metrics_->QueueFigures(model.config().name, queue, f.pending, f.oldest_pending_seconds, f.fair_share, f.used);
      metrics_->usage().QueueUsage(model.config().name, queue, f.used_gpu_hours, std::max(0.0, f.decayed_usage));
    }
  }
}

void Reconciler::WritePoolStatus(PoolModel& model, const ReconcileContext& context, const ConditionWrite& ready, bool force) {
  // A restart record is written at once: a new leader must not restart a gang twice for one fault.
  // So is a change of the Ready condition: an admin who relabels nodes into a pool sees it at once.
  const std::string ready_text = ready.status + ready.reason + ready.message;
  force = force || model.restarts_changed || ready_text != model.last_ready;
  if (!force && context.now - model.last_status_write < options_.status_interval_seconds) return;
  PoolCounts counts;
  counts.pending_gangs = static_cast<int>(model.book.waiting_count());
  const auto& running = model.book.input().running;
  counts.running_gangs =
      static_cast<int>(std::count_if(running.begin(), running.end(), [](const auto& r) { return !r.ungoverned; }));
  if (context.notices) {
    model.state().Read([&](const cache::StateView& v) {
      for (const auto& [node, noticed] : *context.notices) counts.nodes_under_notice += v.FindNode(node) != engine::kNoNode;
    });
  }
  nlohmann::json fields = model.state().Read([&](const cache::StateView& v) {
    std::vector<engine::PodRequest> workload = v.HeldRequests(kPolicyWorkloadSample);
    for (const engine::WaitingGang& w : model.book.input().waiting) {
      workload.insert(workload.end(), w.request.members.begin(), w.request.members.end());
    }
    counts.fragmentation = engine::policies::FragmentedShare(v.cluster(), workload);
    return PoolStatusFields(v, model.queue_figures, counts);
  });
  fields["gangRestarts"] = model.restarts.ToStatus();
  if (context.now - model.usage.status_at >= kUsageStatusSeconds) {
    model.usage.status = UsageStatus(model.usage.ledger);
    model.usage.status_at = context.now;
  }
  fields["usage"] = model.usage.status;
  if (model.runtimes.predictor) {
    if (context.now - model.runtimes.status_at >= kUsageStatusSeconds) {
      model.runtimes.status = RuntimeStatus(*model.runtimes.predictor);
      model.runtimes.status_at = context.now;
    }
    fields["runtimes"] = model.runtimes.status;
    fields["backfills"] = BackfillStatus(model.runtimes.backfills);
  }
  const std::string text = fields.dump() + ready_text;
  if (metrics_ != nullptr) {
    metrics_->PoolGpus(model.config().name, fields["capacityGPUs"].get<double>(), fields["allocatedGPUs"].get<double>(),
                       counts.fragmentation);
    metrics_->NodesUnderNotice(model.config().name, counts.nodes_under_notice);
    for (const auto& level : fields["largestGang"]) {
      metrics_->LargestGang(model.config().name, level["level"].get<std::string>(), level["gpus"].get<int>());
    }
  }
  if (text == model.last_status) return;
  if (writer_.WriteStatus("gpupools", model.config().name, fields, {ready})) {
    model.last_status = text;
    model.last_ready = ready_text;
    model.last_status_write = context.now;
    model.restarts_changed = false;
  }
}

}  // namespace gangplank::op

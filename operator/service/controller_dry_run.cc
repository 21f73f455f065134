// Controller::DryRun: "where and when would this gang land", answered by the engine on the live model
// of the gang's pool without changing anything (the cluster is scratch inside the round and restored,
// the book is copied).
#include <algorithm>
#include <chrono>
#include <cmath>

#include "cache/feed/object_conversion.h"
#include "cache/objects/conventions.h"
#include "engine/admission/admission_round.h"
#include "engine/policies/registry.h"
#include "operator/writer/kube_cluster_writer.h"
#include "operator/model/gang_entries.h"
#include "operator/model/pool_admission_config.h"
#include "operator/model/gang_route.h"
#include "operator/service/controller.h"
#include "operator/reasons.h"

namespace gangplank::op {
namespace {

using Json = nlohmann::json;

Json Refusal(std::string reason, std::string message) {
  return Json{{"admitted", false}, {"reason", std::move(reason)}, {"message", std::move(message)}};
}

// The members of the hypothetical gang, as if just created and held by the admission gate, their DRA
// claims counted by `gpus`.
std::optional<Gang> GangOf(const Json& pods, const cache::dra::GpuInventory& gpus, std::string& error) {
  if (!pods.is_array() || pods.empty()) {
    error = "expected {\"pods\": [Pod, ...]} with at least one Pod object";
    return std::nullopt;
  }
  Gang gang;
  for (size_t i = 0; i < pods.size(); ++i) {
    cache::PodInfo pod;
    try {
      pod = PodInfoFromJson(pods[i]);
    } catch (const std::exception& e) {
      error = "pods[" + std::to_string(i) + "]: " + e.what();
      return std::nullopt;
    }
    if (pod.namespace_.empty()) pod.namespace_ = "default";
    if (pod.name.empty()) pod.name = "dry-run-" + std::to_string(i);
    pod.uid = "dry-run-" + std::to_string(i);
    pod.dra = gpus.DemandOf(pod);
    if (!pod.HasAdmissionGate()) pod.scheduling_gates.emplace_back(cache::kAdmissionGate);
    Member m = MemberOf(pod);
    m.created = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    gang.members.push_back(std::move(m));
  }
  const cache::PodInfo& lead = gang.members.front().pod;
  gang.identity = cache::GangIdentityOf(lead);
  gang.key = GangKeyOf(lead, gang.identity);
  gang.namespace_ = lead.namespace_;
  return gang;
}

}  // namespace

nlohmann::json Controller::DryRun(const nlohmann::json& request) {
  std::string error;
  std::optional<Gang> gang = GangOf(request.value("pods", Json()), feed_.gpus(), error);
  if (!gang) return Json{{"error", error}};
  const ReconcileContext context = Context();
  SizeVerdict size;
  if (request.contains("minMembers") && request["minMembers"].is_number_integer()) {
    size.size = GangSize{std::max(1, request["minMembers"].get<int>()), "the request's minMembers"};
  } else {
    size = sizes_.SizeOf(*gang);
  }
  const GangRoute route = RouteGang(*gang, context.pools, *context.tree, context.namespace_queue(gang->namespace_),
                                    context.queues, size.size ? size.size->priority : std::nullopt);
  const std::string& queue = route.queue;
  if (route.choice.pool.empty()) return Refusal(route.choice.reason, route.choice.message);
  std::shared_ptr<PoolModel> model = pools_.Find(route.choice.pool);
  if (!model) return Refusal(reasons::kPoolNotFound, "GPU pool " + route.choice.pool + " has no model yet");

  const EntryContext entry = EntryContextFor(route, *context.tree, route.choice.pool, size);
  std::lock_guard round(model->round_mutex);
  GangEntries entries = model->state().Read([&](const cache::StateView& v) { return BuildGangEntries(*gang, entry, v); });
  Json answer{{"pool", route.choice.pool}, {"queue", queue}, {"gang", gang->key}};
  if (!entries.waiting) {
    answer.update(Refusal(entries.block_reason, entries.block_message));
    return answer;
  }
  engine::AdmissionInput input = model->book.input();  // A copy: the dry run changes nothing.
  input.now = context.now;
  entries.waiting->request.name = "dry-run:" + gang->key;  // Never collides with the gang if it exists.
  if (model->runtimes.predictor) {
    // What gangs like it ran: it may start on reserved nodes on that, as the real round would let it.
    // FindChain: a question, however many, adds no keys to the pool's predictor.
    const engine::GangRequest& g = entries.waiting->request;
    const engine::RuntimePredictor& predictor = *model->runtimes.predictor;
    if (auto p = predictor.Quantile(predictor.FindChain(RuntimeKeyOf(*gang, g.queue, engine::GangGpus(g))), model->runtimes.quantile)) {
      entries.waiting->predicted_runtime = p->seconds;
      answer["predictedRuntime"] = {{"seconds", p->seconds}, {"quantile", model->runtimes.quantile}, {"basedOn", p->level},
                                    {"samples", p->samples}};
    }
  }
  input.waiting.push_back(*entries.waiting);
  const int mine = static_cast<int>(input.waiting.size()) - 1;
  input.plan_only = std::vector<int>{mine};
  const engine::AdmissionConfig config = AdmissionConfigFor(model->config());
  engine::Rng rng(1);
  model->state().Plan([&](engine::Cluster& cluster, const cache::StateView& view) {
    input.reservations = model->HeldReservations(view);
    input.returning_nodes = model->ReturningNodes(view);
    std::unique_ptr<engine::ScoringPolicy> scratch_policy;
    engine::ScoringPolicy* policy = model->policy.get();
    if (policy == nullptr) {
      scratch_policy = engine::policies::MakePolicy(options_.reconciler.policy, view.HeldRequests(kPolicyWorkloadSample), options_.reconciler.seed);
      policy = scratch_policy.get();
    }
    const engine::AdmissionDecision decision = engine::DecideAdmission(cluster, input, config, *policy, rng);
    for (const engine::Admitted& a : decision.admitted) {
      if (a.waiting != mine) continue;
      Json placements = Json::array();
      for (const engine::MemberAllocation& m : a.plan.allocations) {
        placements.push_back({{"pod", entries.waiting_pods.at(m.member).name}, {"node", cluster.spec(m.allocation.node).name}});
      }
      answer["admitted"] = true;
      answer["when"] = "now";
      answer["placements"] = std::move(placements);
      answer["message"] = a.reason;
    }
    Json evictions = Json::array();
    for (const engine::Reclaimed& r : decision.reclaims) {
      if (r.beneficiary != mine) continue;
      const engine::RunningGang& victim = input.running[r.running];
      // Another namespace's gang is another tenant's business: its queue and size, not its name (L5).
      if (victim.name.rfind(gang->namespace_ + "/", 0) == 0) {
        evictions.push_back({{"gang", victim.name}, {"reason", r.reason}});
      } else {
        evictions.push_back({{"gang", "(a gang of another namespace)"}, {"queue", victim.queue}, {"gpus", victim.Gpus()}});
      }
    }
    for (const engine::Blocked& b : decision.blocked) {
      if (b.waiting != mine) continue;
      answer["admitted"] = false;
      answer["reason"] = std::string(engine::BlockCodeName(b.code));
      answer["message"] = b.message;
      answer["when"] = evictions.empty() ? "when the obstacle above clears (capacity freed, queue below its limit)"
                                          : "after the gangs under wouldEvict leave";
    }
    if (!evictions.empty()) answer["wouldEvict"] = std::move(evictions);
    for (const engine::Reserved& r : decision.reservations) {
      if (r.waiting != mine) continue;
      Json nodes = Json::array();
      for (engine::NodeId n : r.nodes) nodes.push_back(cluster.spec(n).name);
      Json reservation{{"nodes", std::move(nodes)}, {"reason", r.reason}};
      if (!r.domain.empty()) reservation["domain"] = r.domain;
      // Seconds from now; absent when the round did not judge it (reclaim reservations).
      if (std::isfinite(r.expected_start)) reservation["expectedStartSeconds"] = std::max(0.0, r.expected_start - input.now);
      answer["reservation"] = std::move(reservation);
    }
  });
  // How many gangs of its queue wait ahead of it (same or higher priority, earlier).
  int ahead = 0;
  for (size_t w = 0; w + 1 < input.waiting.size(); ++w) {
    const engine::WaitingGang& other = input.waiting[w];
    if (other.request.queue != queue) continue;
    if (other.request.priority > entries.waiting->request.priority ||
        (other.request.priority == entries.waiting->request.priority && other.arrival <= entries.waiting->arrival)) {
      ++ahead;
    }
  }
  answer["gangsAheadInQueue"] = ahead;
  return answer;
}

}  // namespace gangplank::op

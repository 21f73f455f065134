#include "operator/autoscaling/capacity_asks.h"

namespace gangplank::op {
namespace {

bool NewNodesWouldHelp(engine::BlockCode code) {
  return code == engine::BlockCode::kInsufficientGpus || code == engine::BlockCode::kTopology ||
         code == engine::BlockCode::kNoEligibleNodes;
}

}  // namespace

std::vector<CapacityAsk> CapacityAsksOf(const cache::PoolConfig& pool, const engine::Cluster& cluster,
                                        const engine::AdmissionInput& input, const engine::AdmissionDecision& decision,
                                        const std::function<std::string(int waiting)>& key_of) {
  std::vector<CapacityAsk> asks;
  if (!pool.autoscaling.enabled) return asks;
  engine::NewNodesQuestion question;
  question.domain_key = pool.autoscaling.domain_label;
  question.domain_values = pool.autoscaling.domains;
  question.shape.gpus = pool.autoscaling.node_gpus;
  // GPUs this round's admissions take are not in `cluster` yet.
  for (const engine::Admitted& a : decision.admitted) {
    for (const engine::MemberAllocation& m : a.plan.allocations) {
      question.taken[m.allocation.node] += static_cast<int>(m.allocation.gpus.size());
    }
  }
  for (const engine::Blocked& b : decision.blocked) {
    if (!NewNodesWouldHelp(b.code)) continue;
    const engine::GangRequest& gang = input.waiting.at(static_cast<size_t>(b.waiting)).request;
    CapacityAsk ask;
    ask.gang_key = key_of(b.waiting);
    ask.nodes = engine::PlanNewNodes(cluster, gang, question, ask.why);
    ask.members = gang.members;
    ask.domain_label = question.domain_key;
    asks.push_back(std::move(ask));
  }
  return asks;
}

}  // namespace gangplank::op

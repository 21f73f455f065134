// The victims the extender approved in one preempt answer, per node. kube-scheduler deletes the victims
// of the node it picks and retries the preemptor there; the deletions can reach kube-scheduler's cache
// before the extender's, so the filter counts a grant's victims as gone on a node kube-scheduler
// acted on (see FilterNodes), instead of refusing that node and sending kube-scheduler to preempt a
// second gang elsewhere.
#pragma once

#include <string>
#include <vector>

namespace gangplank::extender {

struct GrantedNode {
  std::string node;
  std::vector<std::string> victim_uids;
};

using PreemptionGrant = std::vector<GrantedNode>;  // Sorted by node name, as the preempt answer.

}  // namespace gangplank::extender

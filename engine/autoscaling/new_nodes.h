// How many nodes an autoscaler must add for a waiting gang, and in which domain, so that the whole gang
// fits and no more is bought. The operator turns the answer into placeholder pods the autoscaler
// provisions for (operator/autoscaling/); the simulator could ask the same question.
//
// The gang's members go first onto the whole free GPUs of existing schedulable nodes of a candidate
// domain, then onto new nodes of one shape, largest member first, first fit. Of the candidate domains
// (label values the autoscaler can give new nodes), the one needing the fewest new nodes wins, the
// first listed on a tie: a gang that requires one domain gets all its nodes in it.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/cluster.h"
#include "engine/gang/gang_request.h"

namespace gangplank::engine {

// What one node the autoscaler adds holds.
struct NewNodeShape {
  int gpus = 8;
  int max_pods = 110;
};

struct NewNodesQuestion {
  // The node label new nodes are told apart by (a topology level key, e.g. an NVLink clique), and the
  // values the autoscaler can give them. An empty key or list: new nodes go anywhere in the pool.
  std::string domain_key;
  std::vector<std::string> domain_values;
  NewNodeShape shape;
  // Whole GPUs per node already promised this round (admissions not yet in `cluster`).
  std::map<NodeId, int> taken;
};

struct NewNodes {
  std::string domain_value;  // The domain the new nodes go into; "" when the question named none.
  // Member indices per new node; empty when the existing free GPUs of the domain hold the whole gang.
  std::vector<std::vector<int>> members;
  int count() const { return static_cast<int>(members.size()); }
};

// The new nodes `gang` needs, or nullopt with `why` set when new nodes of this shape cannot hold it (a
// member asks more GPUs than a new node has, or the gang asks for none).
std::optional<NewNodes> PlanNewNodes(const Cluster& cluster, const GangRequest& gang, const NewNodesQuestion& question,
                                     std::string& why);

}  // namespace gangplank::engine

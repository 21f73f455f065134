// spec.autoscaling of a GPUPool: the pool's nodes come and go with an autoscaler (Karpenter,
// cluster-autoscaler), so a gang that does not fit makes gangplank ask for the nodes it needs, whole, in
// one domain, and the nodes of running gangs are kept from voluntary disruption (docs/cluster-admins.md).
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace gangplank::cache {

struct PoolAutoscaling {
  bool enabled = false;
  // What one node the autoscaler adds holds (an instance type of the NodePool the pool's selector
  // matches).
  int node_gpus = 8;
  // The node label new nodes are told apart by (one of the pool's topology levels) and the values the
  // autoscaler can give it (a NodePool requirement's values). Empty: new nodes anywhere in the pool.
  std::string domain_label;
  std::vector<std::string> domains;
  // Labels the placeholder pods select besides the pool's nodeSelector (e.g. the NodePool's name).
  std::map<std::string, std::string> node_selector;
  // How long a request may wait for its nodes before it is called failed and made again.
  int provision_timeout_seconds = 300;
  bool operator==(const PoolAutoscaling&) const = default;
};

// The GPUPool's spec.autoscaling with the CRD's defaults; throws DecodeError naming the field. A
// domainLabel must be one of `topology_levels`, and domains needs a domainLabel.
PoolAutoscaling PoolAutoscalingOf(const nlohmann::json& pool, const std::vector<std::string>& topology_levels);

}  // namespace gangplank::cache

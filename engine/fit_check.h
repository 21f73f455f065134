// Cluster::Fits and Cluster::Eligible for one request over many nodes, decided from each node's
// NodeSummary (one cache line) wherever that is enough: the request's GPU models are turned into model
// ids once, so most nodes need neither their spec nor their per-GPU array. A node with a blocking taint,
// or a request with a node selector, goes to Cluster::Eligible for those checks. The answers are the
// Cluster's own, always (tests/engine/core/fit_check_test.cc compares both on random clusters).
#pragma once

#include <vector>

#include "engine/cluster.h"

namespace gangplank::engine {

class FitCheck {
 public:
  // Both must outlive the FitCheck, and the cluster must not change while it is used.
  FitCheck(const Cluster& cluster, const PodRequest& request);

  bool Eligible(NodeId node) const;     // == cluster.Eligible(node, request)
  bool HasCapacity(NodeId node) const;  // == cluster.HasCapacity(node, request)
  bool Fits(NodeId node) const { return Eligible(node) && HasCapacity(node); }

 private:
  const Cluster& cluster_;
  const PodRequest& request_;
  bool check_models_;                 // The request wants a GPU and names the models it allows.
  std::vector<char> allowed_models_;  // By Cluster model id.
  bool has_selector_;
};

}  // namespace gangplank::engine

// Spot capacity and termination notices, read from a node as the clouds and their tools mark it
// (the labels, annotations, conditions and taints each cloud or tool documents):
//   spot        labels karpenter.sh/capacity-type=spot, cloud.google.com/gke-spot=true,
//               cloud.google.com/gke-preemptible=true, kubernetes.azure.com/scalesetpriority=spot,
//               eks.amazonaws.com/capacityType=SPOT (a GPUPool of capacityType Spot makes all its nodes spot)
//   notice      the AWS Node Termination Handler's taint aws-node-termination-handler/spot-itn (2 min);
//               Karpenter's karpenter.sh/disrupted taint (v1) or karpenter.sh/disruption (v1beta1) (2 min);
//               GKE's cloud.google.com/impending-node-termination taint or ImpendingNodeTermination
//               condition (30 s); AKS's remediator.aks.microsoft.com/unschedulable taint on a spot node
//               (30 s); and gangplank.io/terminate-at (RFC 3339), which an admin or a script sets on any
//               node with the exact time it goes.
// A node under notice takes no new pods: the cache treats it as cordoned. A terminate-at that is not
// RFC 3339 is no notice: it is ignored, with a warning for the operator to report.
#pragma once

#include <optional>
#include <string>

#include "cache/objects/kube_objects.h"

namespace gangplank::cache {

struct TerminationNotice {
  std::string source;  // aws-node-termination-handler, karpenter, gke, aks, annotation
  std::string signal;  // The taint, condition or annotation that says so.
  // When the node goes: the annotation's time (seconds since the epoch) when there is one, else
  // `lead_seconds` after the notice was first seen.
  std::optional<double> terminate_at;
  double lead_seconds = 120;
};

struct NoticeReading {
  std::optional<TerminationNotice> notice;
  std::string warning;  // A malformed gangplank.io/terminate-at: what is wrong with it.
};

// `known_spot`: the node is spot by what its GPU pool says (capacityType Spot, spec.spot.nodeSelector),
// besides the clouds' labels.
NoticeReading ReadTerminationNotice(const NodeInfo& node, bool known_spot = false);
bool IsSpotNode(const NodeInfo& node);

}  // namespace gangplank::cache

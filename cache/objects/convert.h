// From Kubernetes objects to what the engine reads: a pod's PodRequest and a node's NodeSpec.
#pragma once

#include <string>
#include <vector>

#include "engine/node.h"
#include "engine/request.h"
#include "cache/objects/kube_objects.h"

namespace gangplank::cache {

// The pod's effective request as kube-scheduler computes it: per resource the larger of the sum over
// containers and the largest init container, plus overhead; a container limit stands in for a missing
// request. GPUs: nvidia.com/gpu whole GPUs, or gangplank.io/gpu-milli (a share of one GPU). Allowed
// models from the gangplank.io/gpu-models annotation. Throws DecodeError (path below the pod, e.g.
// "spec.containers[0].resources.requests.cpu") for bad quantities or an impossible GPU request.
engine::PodRequest ToPodRequest(const PodInfo& pod);

// Allocatable CPU and memory, whole GPUs and the GPU model label of a node. Throws DecodeError.
engine::NodeSpec ToNodeSpec(const NodeInfo& node);

// Whether kube-scheduler sends this pod to an extender with these managedResources: always when the
// list is empty, else when a container or init container requests or limits one of them.
bool IsInterested(const PodInfo& pod, const std::vector<std::string>& managed_resources);

// The "|"-separated model list of the gpu-models annotation, trimmed, empty entries dropped.
std::vector<std::string> SplitGpuModels(std::string_view annotation);

}  // namespace gangplank::cache

// From Kubernetes objects to what the engine reads: a pod's PodRequest and a node's NodeSpec.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "engine/node.h"
#include "engine/request.h"
#include "cache/objects/kube_objects.h"

namespace gangplank::cache {

// The pod's effective request per resource as Kubernetes computes it (base/pod_requests.h: app containers
// and sidecars summed, init containers beside the sidecars before them, pod-level cpu and memory, plus
// overhead), in milli-CPU, bytes and units. Throws DecodeError (path below the pod, e.g.
// "spec.containers[0].resources.requests.cpu") for bad quantities.
std::map<std::string, std::int64_t> EffectiveRequests(const PodInfo& pod);

// What the engine plans for the pod: its effective CPU and memory, and its GPUs from every source
// counted once: nvidia.com/gpu (from a device plugin or DRA-backed) whole GPUs, gangplank.io/gpu-milli (a
// share of one GPU), and its DRA claims (pod.dra: whole GPUs, and MIG partitions as shares). Allowed
// models from the gangplank.io/gpu-models annotation, narrowed to the models its claims can match. Throws
// DecodeError for bad quantities, an impossible GPU request, or claims that cannot be satisfied (an
// unknown class, a missing claim or template) while the pod is not yet bound.
engine::PodRequest ToPodRequest(const PodInfo& pod);

// Allocatable CPU and memory, whole GPUs (the device plugin's and DRA's) and the GPU model (its label,
// else its DRA devices') of a node. Throws DecodeError.
engine::NodeSpec ToNodeSpec(const NodeInfo& node);

// Whether the extender has a say on this pod: kube-scheduler sends it a pod when its managedResources
// list is empty, or when a container or init container requests or limits one of them; and gangplank
// governs every pod that asks for GPUs through resource claims (a claim pod reaches the extender only
// when managedResources is empty, as the chart configures it).
bool IsInterested(const PodInfo& pod, const std::vector<std::string>& managed_resources);

// The "|"-separated model list of the gpu-models annotation, trimmed, empty entries dropped.
std::vector<std::string> SplitGpuModels(std::string_view annotation);

}  // namespace gangplank::cache

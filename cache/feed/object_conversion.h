// From the Kubernetes client's compact cached objects (kube/objects.h) to the views the cache and the
// engine adapters read (cache/objects/kube_objects.h).
#pragma once

#include <string>

#include "cache/dra/gpu_inventory.h"
#include "cache/objects/kube_objects.h"
#include "cache/objects/plan_seal.h"
#include "kube/objects.h"

namespace gangplank::cache {

// With a `seal`, a plan whose seal does not verify is dropped (cache/objects/plan_seal.h). With the DRA
// `gpus` inventory, the pod's claims are counted (PodInfo::dra) and the node's DRA GPUs (NodeInfo::dra).
PodInfo ToPodInfo(const kube::Pod& pod, const PlanSeal* seal = nullptr, const dra::GpuInventory* gpus = nullptr);
NodeInfo ToNodeInfo(const kube::Node& node, const dra::GpuInventory* gpus = nullptr);
// A Namespace's gangplank.io/queue label (the queue of its pods that name none); "" when it has none.
std::string NamespaceQueueOf(const kube::GenericObject& ns);

}  // namespace gangplank::cache

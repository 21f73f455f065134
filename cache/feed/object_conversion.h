// From the Kubernetes client's compact cached objects (kube/objects.h) to the views the cache and the
// engine adapters read (cache/objects/kube_objects.h).
#pragma once

#include "cache/objects/kube_objects.h"
#include "kube/objects.h"

namespace gangplank::cache {

PodInfo ToPodInfo(const kube::Pod& pod);
NodeInfo ToNodeInfo(const kube::Node& node);

}  // namespace gangplank::cache

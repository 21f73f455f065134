// Resource descriptors of gangplank's own custom resources (crds/), for informers and REST calls.
#pragma once

#include "kube/resource.h"

namespace gangplank::cache::resources {

const kube::ResourceDescriptor& gpu_pools();  // gangplank.io/v1alpha1 GPUPool, cluster-scoped
const kube::ResourceDescriptor& queues();     // gangplank.io/v1alpha1 Queue, cluster-scoped

}  // namespace gangplank::cache::resources

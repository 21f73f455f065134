#include "cache/feed/gangplank_resources.h"

namespace gangplank::cache::resources {

const kube::ResourceDescriptor& gpu_pools() {
  static const kube::ResourceDescriptor r{"gangplank.io", "v1alpha1", "gpupools", "GPUPool", false};
  return r;
}

const kube::ResourceDescriptor& queues() {
  static const kube::ResourceDescriptor r{"gangplank.io", "v1alpha1", "queues", "Queue", false};
  return r;
}

}  // namespace gangplank::cache::resources

#include "extender/decisions/room_without.h"

#include "engine/node_release.h"

namespace gangplank::extender {

bool FitsWithout(const cache::StateView& view, engine::NodeId node, const engine::PodRequest& request,
                 std::span<const cache::PodRecord* const> gone, engine::NodeState& scratch) {
  scratch = view.cluster().state(node);
  for (const cache::PodRecord* pod : gone) {
    if (pod != nullptr && pod->allocation && pod->allocation->node == node) engine::ReleaseOnNode(scratch, *pod->allocation);
  }
  return engine::CapacityFits(scratch, request);
}

}  // namespace gangplank::extender

#include "engine/admission/gang_shape.h"

#include <algorithm>
#include <functional>

namespace gangplank::engine {

bool SameConstraints(const PodRequest& a, const PodRequest& b) {
  if (a.gpu_milli != b.gpu_milli || a.gpu_models != b.gpu_models || a.node_selector != b.node_selector ||
      a.node_label_not_in != b.node_label_not_in) {
    return false;
  }
  if (a.tolerations.size() != b.tolerations.size()) return false;
  for (size_t i = 0; i < a.tolerations.size(); ++i) {
    const Toleration& x = a.tolerations[i];
    const Toleration& y = b.tolerations[i];
    if (x.key != y.key || x.op != y.op || x.value != y.value || x.effect != y.effect) return false;
  }
  return true;
}

GangShape ShapeOf(const GangRequest& gang) {
  GangShape s;
  s.gang = &gang;
  if (gang.members.empty() || gang.MinMembers() != static_cast<int>(gang.members.size())) return s;
  for (const PodRequest& m : gang.members) {
    if (!SameConstraints(m, gang.members.front())) return s;
    s.sizes.push_back({m.gpu_count, m.host.cpu_milli, m.host.memory_mib});
  }
  std::sort(s.sizes.begin(), s.sizes.end(), std::greater<>());
  s.comparable = true;
  return s;
}

bool NeedsAtLeast(const GangShape& a, const GangShape& b) {
  if (!a.comparable || !b.comparable || a.sizes.size() < b.sizes.size()) return false;
  if (a.gang->required_level != b.gang->required_level ||
      !SameConstraints(a.gang->members.front(), b.gang->members.front())) {
    return false;
  }
  for (size_t i = 0; i < b.sizes.size(); ++i) {
    for (size_t k = 0; k < 3; ++k) {
      if (a.sizes[i][k] < b.sizes[i][k]) return false;
    }
  }
  return true;
}

std::vector<int> GpuSizes(const GangRequest& gang) {
  std::vector<int> sizes;
  for (const PodRequest& m : gang.members) sizes.push_back(m.gpu_count);
  std::sort(sizes.begin(), sizes.end(), std::greater<>());
  return sizes;
}

}  // namespace gangplank::engine

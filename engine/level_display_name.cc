#include "engine/level_display_name.h"

#include <array>
#include <string_view>
#include <utility>

namespace gangplank::engine {

std::string LevelDisplayName(const std::string& label_key) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 6> kExact{{
      {"nvidia.com/gpu.clique", "NVLink domain"},
      {"topology.kubernetes.io/zone", "zone"},
      {"topology.kubernetes.io/region", "region"},
      {"kubernetes.io/hostname", "node"},
      {"cloud.google.com/gce-topology-block", "block"},
      {"cloud.google.com/gce-topology-subblock", "sub-block"},
  }};
  for (const auto& [key, name] : kExact) {
    if (label_key == key) return std::string(name);
  }
  // Switch layers of a network fabric: the key itself says which layer.
  const std::string_view key(label_key);
  for (std::string_view prefix : {std::string_view("network.topology.nvidia.com/"),
                                  std::string_view("topology.k8s.aws/network-node-layer-")}) {
    if (key.size() > prefix.size() && key.substr(0, prefix.size()) == prefix) {
      return "network domain (" + label_key + ")";
    }
  }
  return label_key;
}

}  // namespace gangplank::engine

#include "operator/model/pool_health.h"

namespace gangplank::op {

std::map<std::string, PoolHealth> PoolHealthOf(const std::vector<cache::PoolConfig>& pools,
                                               const std::vector<engine::NodeSpec>& nodes) {
  std::map<std::string, PoolHealth> health;
  for (const cache::PoolConfig& p : pools) health[p.name];
  for (const engine::NodeSpec& node : nodes) {
    const std::vector<int> selecting = cache::PoolsSelecting(pools, node);
    for (int a : selecting) {
      PoolHealth& h = health[pools[a].name];
      ++h.nodes;
      for (int b : selecting) {
        if (a != b) ++h.shared_with[pools[b].name];
      }
    }
  }
  return health;
}

}  // namespace gangplank::op

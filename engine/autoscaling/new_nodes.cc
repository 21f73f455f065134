#include "engine/autoscaling/new_nodes.h"

#include <algorithm>
#include <numeric>

namespace gangplank::engine {
namespace {

// The free whole GPUs of one existing node.
struct Room {
  NodeId node = kNoNode;
  int gpus = 0;
};

// Existing schedulable nodes in the domain (every node when `value` is empty) with free whole GPUs.
std::vector<Room> ExistingRoom(const Cluster& cluster, const NewNodesQuestion& q, const std::string& value) {
  std::vector<Room> rooms;
  for (NodeId n = 0; n < cluster.size(); ++n) {
    const NodeSpec& spec = cluster.spec(n);
    if (spec.unschedulable) continue;
    if (!value.empty()) {
      auto label = spec.labels.find(q.domain_key);
      if (label == spec.labels.end() || label->second != value) continue;
    }
    int free = cluster.state(n).FullyFreeGpus();
    if (auto t = q.taken.find(n); t != q.taken.end()) free -= t->second;
    if (free > 0) rooms.push_back({n, free});
  }
  return rooms;
}

// New nodes for the members existing rooms cannot hold, members taken largest first.
NewNodes Pack(const Cluster& cluster, const GangRequest& gang, const std::vector<int>& order, std::vector<Room> rooms,
              const NewNodesQuestion& q) {
  NewNodes out;
  std::vector<int> gpus_left, pods_left;
  for (int m : order) {
    const PodRequest& member = gang.members[static_cast<size_t>(m)];
    auto room = std::find_if(rooms.begin(), rooms.end(), [&](const Room& r) {
      return r.gpus >= member.gpu_count && cluster.Eligible(r.node, member);
    });
    if (room != rooms.end()) {
      room->gpus -= member.gpu_count;
      continue;
    }
    size_t i = 0;
    while (i < gpus_left.size() && (gpus_left[i] < member.gpu_count || pods_left[i] < 1)) ++i;
    if (i == gpus_left.size()) {
      gpus_left.push_back(q.shape.gpus);
      pods_left.push_back(q.shape.max_pods);
      out.members.emplace_back();
    }
    gpus_left[i] -= member.gpu_count;
    pods_left[i] -= 1;
    out.members[i].push_back(m);
  }
  return out;
}

}  // namespace

std::optional<NewNodes> PlanNewNodes(const Cluster& cluster, const GangRequest& gang, const NewNodesQuestion& q,
                                     std::string& why) {
  std::vector<int> order;
  for (size_t m = 0; m < gang.members.size(); ++m) {
    const PodRequest& member = gang.members[m];
    if (!member.WantsGpu()) continue;
    // A sharing pod takes a GPU of a new node as a whole one would: the autoscaler buys whole GPUs.
    if (member.gpu_count > q.shape.gpus) {
      why = "a member asks for " + std::to_string(member.gpu_count) + " GPUs; a node the autoscaler adds has " +
            std::to_string(q.shape.gpus);
      return std::nullopt;
    }
    order.push_back(static_cast<int>(m));
  }
  if (order.empty()) {
    why = "the gang asks for no GPUs";
    return std::nullopt;
  }
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return gang.members[static_cast<size_t>(a)].gpu_count > gang.members[static_cast<size_t>(b)].gpu_count;
  });
  const std::vector<std::string> anywhere{std::string()};
  const std::vector<std::string>& values = q.domain_key.empty() || q.domain_values.empty() ? anywhere : q.domain_values;
  std::optional<NewNodes> best;
  for (const std::string& value : values) {
    NewNodes nodes = Pack(cluster, gang, order, ExistingRoom(cluster, q, value), q);
    nodes.domain_value = value;
    if (!best || nodes.count() < best->count()) best = std::move(nodes);
  }
  return best;
}

}  // namespace gangplank::engine

#include "simulator/spot/preemption_sequence.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <tuple>

#include "engine/random.h"

namespace gangplank::simulator {
namespace {

constexpr double kSecondsPerMonth = 30 * 86400.0;

// Seconds until the next event of a Poisson process of `rate` per second.
double ExponentialGap(engine::Rng& rng, double rate) { return -std::log(1 - rng.Unit()) / rate; }

// Seeds one node's stream from a hash of (run seed, node). Seeding with seed * k + node instead would make
// seed s + 1's streams those of seed s shifted by one draw (the generator adds the same constant per draw).
std::uint64_t NodeStreamSeed(std::uint64_t seed, engine::NodeId node) {
  engine::Rng by_seed(seed);
  engine::Rng by_node(by_seed.Next() ^ static_cast<std::uint64_t>(node));
  return by_node.Next();
}

}  // namespace

std::vector<engine::NodeId> PickSpotNodes(const PreemptionModel& model) {
  std::vector<engine::NodeId> nodes(static_cast<size_t>(std::max(0, model.nodes)));
  std::iota(nodes.begin(), nodes.end(), 0);
  engine::Rng rng(model.seed);
  for (size_t i = nodes.size(); i > 1; --i) std::swap(nodes[i - 1], nodes[rng.Below(i)]);
  const auto spot = static_cast<size_t>(std::lround(model.spot_fraction * static_cast<double>(nodes.size())));
  nodes.resize(std::min(spot, nodes.size()));
  std::sort(nodes.begin(), nodes.end());
  return nodes;
}

std::vector<NodePreemption> DrawPreemptions(const PreemptionModel& model) {
  std::vector<NodePreemption> out;
  const double rate = model.interruptions_per_node_month / kSecondsPerMonth;
  if (!(rate > 0)) return out;
  // One stream per node, so that one node's draws never shift another's.
  for (engine::NodeId node : PickSpotNodes(model)) {
    engine::Rng rng(NodeStreamSeed(model.seed, node));
    for (double up_since = 0;;) {
      const double notice = up_since + ExponentialGap(rng, rate);
      if (notice >= model.horizon) break;
      const double gone = notice + model.notice_seconds;
      out.push_back(NodePreemption{node, notice, gone, gone + model.replacement_seconds});
      up_since = gone + model.replacement_seconds;
    }
  }
  std::sort(out.begin(), out.end(), [](const NodePreemption& a, const NodePreemption& b) {
    return std::tie(a.notice_at, a.node) < std::tie(b.notice_at, b.node);
  });
  return out;
}

}  // namespace gangplank::simulator

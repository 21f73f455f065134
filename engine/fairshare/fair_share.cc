#include "engine/fairshare/fair_share.h"

#include <algorithm>
#include <cmath>

namespace gangplank::engine {
namespace {

double Cap(const ShareInput& q) {
  if (!(q.demand > 0)) return 0;
  return std::max(0.0, std::min(q.demand, q.limit));
}

double Clamp0(double v) { return std::isfinite(v) && v > 0 ? v : 0; }

// Sum of shares at water level `level` for the weighted queues.
double FilledAt(double level, const std::vector<ShareInput>& queues, const std::vector<double>& floor,
                const std::vector<double>& cap) {
  double sum = 0;
  for (size_t i = 0; i < queues.size(); ++i) {
    const double w = Clamp0(queues[i].weight);
    sum += w > 0 ? std::min(cap[i], std::max(floor[i], level * w)) : floor[i];
  }
  return sum;
}

}  // namespace

std::vector<double> WaterFill(double capacity, const std::vector<ShareInput>& queues) {
  const size_t n = queues.size();
  capacity = Clamp0(capacity);
  std::vector<double> cap(n), floor(n), share(n, 0);
  double floors = 0, caps = 0;
  for (size_t i = 0; i < n; ++i) {
    // Guarantees scale against each other unclipped; shares never exceed the pool (also tames infinity).
    floor[i] = std::min(Clamp0(queues[i].guaranteed), Cap(queues[i]));
    cap[i] = std::min(Cap(queues[i]), capacity);
    floors += floor[i];
    caps += cap[i];
  }
  if (floors > capacity) {
    // Guarantees oversubscribe the pool: scale them down together.
    for (size_t i = 0; i < n; ++i) share[i] = floor[i] * capacity / floors;
    return share;
  }
  if (caps <= capacity) return cap;  // Everyone gets what it can use.
  // Weighted queues alone may not be able to absorb the capacity: then they all get their caps and the
  // rest goes to weight-0 queues.
  double weighted_caps = 0;
  for (size_t i = 0; i < n; ++i) weighted_caps += Clamp0(queues[i].weight) > 0 ? cap[i] : floor[i];
  if (weighted_caps <= capacity) {
    std::vector<size_t> zero;
    double left = capacity;
    for (size_t i = 0; i < n; ++i) {
      if (Clamp0(queues[i].weight) > 0) {
        share[i] = cap[i];
      } else {
        share[i] = floor[i];
        if (cap[i] > floor[i]) zero.push_back(i);
      }
      left -= share[i];
    }
    // Even max-min among weight-0 queues for what remains.
    std::vector<ShareInput> rest;
    for (size_t i : zero) rest.push_back(ShareInput{1, 0, cap[i] - floor[i], cap[i] - floor[i]});
    const std::vector<double> extra = WaterFill(std::max(left, 0.0), rest);
    for (size_t k = 0; k < zero.size(); ++k) share[zero[k]] += extra[k];
    return share;
  }
  // FilledAt is continuous, piecewise linear and non-decreasing in the level, with breakpoints where a
  // queue leaves its floor (floor/w) or reaches its cap (cap/w). Find the segment holding `capacity`.
  std::vector<double> points{0};
  for (size_t i = 0; i < n; ++i) {
    const double w = Clamp0(queues[i].weight);
    if (w <= 0) continue;
    points.push_back(floor[i] / w);
    points.push_back(cap[i] / w);
  }
  std::sort(points.begin(), points.end());
  points.erase(std::unique(points.begin(), points.end()), points.end());
  double lo = 0, lo_sum = FilledAt(0, queues, floor, cap), level = 0;
  for (double p : points) {
    const double sum = FilledAt(p, queues, floor, cap);
    if (sum >= capacity) {
      level = sum > lo_sum ? lo + (p - lo) * (capacity - lo_sum) / (sum - lo_sum) : p;
      break;
    }
    lo = p;
    lo_sum = sum;
    level = p;
  }
  for (size_t i = 0; i < n; ++i) {
    const double w = Clamp0(queues[i].weight);
    share[i] = w > 0 ? std::min(cap[i], std::max(floor[i], level * w)) : floor[i];
  }
  return share;
}

namespace {

double Demand(const QueueNode& node) {
  if (node.children.empty()) return Clamp0(node.demand);
  double sum = 0;
  for (const QueueNode& c : node.children) sum += std::min(Demand(c), std::max(0.0, c.limit));
  return sum;
}

QueueShare Divide(double share, const QueueNode& node) {
  QueueShare out;
  out.name = node.name;
  out.share = share;
  out.demand = Demand(node);
  if (node.children.empty()) return out;
  std::vector<ShareInput> inputs;
  for (const QueueNode& c : node.children) inputs.push_back(ShareInput{c.weight, c.guaranteed, c.limit, Demand(c)});
  const std::vector<double> shares = WaterFill(share, inputs);
  for (size_t i = 0; i < node.children.size(); ++i) out.children.push_back(Divide(shares[i], node.children[i]));
  return out;
}

}  // namespace

QueueShare ComputeFairShares(double capacity, const QueueNode& root) {
  const double share = std::min({Clamp0(capacity), Demand(root), std::max(0.0, root.limit)});
  return Divide(share, root);
}

}  // namespace gangplank::engine

// Weighted max-min fair shares (water-filling) of a pool's GPUs among queues.
//
// Only queues with demand take part; a queue's share never exceeds min(demand, limit). Guarantees are
// floors: each queue first gets min(guaranteed, demand, limit) when the pool can give every queue that
// (when it cannot, the floors are scaled down in proportion). Above the floors, capacity is filled by
// weight: the share is min(cap, max(floor, level * weight)) for one common water level chosen so the
// shares add up to the capacity, or every queue gets its cap when capacity is left over. Queues of
// weight 0 get their floor and only capacity no weighted queue can use, split evenly among them.
// Shares are real numbers of GPUs; their sum never exceeds the capacity.
//
// Hierarchy: a QueueNode with children divides its own share among them by the same rule (its demand
// is the sum of theirs), so a tree of queues is a repeated flat computation.
#pragma once

#include <limits>
#include <string>
#include <vector>

namespace gangplank::engine {

struct ShareInput {
  double weight = 1;
  double guaranteed = 0;
  double limit = std::numeric_limits<double>::infinity();
  double demand = 0;  // GPUs the queue holds plus GPUs its waiting gangs ask for.
};

// Shares of `capacity` for each input, in input order.
std::vector<double> WaterFill(double capacity, const std::vector<ShareInput>& queues);

struct QueueNode {
  std::string name;
  double weight = 1;
  double guaranteed = 0;
  double limit = std::numeric_limits<double>::infinity();
  double demand = 0;  // Leaves only; an inner node's demand is its children's.
  std::vector<QueueNode> children;
};

struct QueueShare {
  std::string name;
  double share = 0;
  double demand = 0;
  std::vector<QueueShare> children;
};

// Shares of `capacity` for `root` and every queue below it (root gets min(capacity, demand, limit)).
QueueShare ComputeFairShares(double capacity, const QueueNode& root);

}  // namespace gangplank::engine

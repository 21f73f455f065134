// How a DRA device relates to a physical GPU: whole, or a partition (a MIG device) and how large a share
// of its parent, and the GPU model it reports. Partitions are recognised the ways drivers publish them:
// NVIDIA's `type: mig` and `parentUUID` attributes, or a partitionable device (KEP-4815) that consumes
// only part of a counter set. A partition's share of its GPU is the part of the parent's memory slices it
// takes (1g.10gb of an H100: 1 of 8, 125 milli-GPU), else of its memory, else its compute slices of
// seven by its profile's name; unknown, it counts as a whole GPU.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "cache/dra/dra_objects.h"
#include "engine/resources.h"

namespace gangplank::cache::dra {

struct PartitionShape {
  bool partition = false;
  engine::MilliGpu share = engine::kMilliPerGpu;
  // A partition's parent GPU, as "<driver>/<pool>/<counter set>" or "<driver>/<pool>/uuid:<parent UUID>".
  std::string parent;
};

// `counter_sets`: every counter set of the cluster by "<driver>/<pool>/<set>".
PartitionShape ShapeOf(const std::string& driver, const std::string& pool, const Device& device,
                       const std::map<std::string, std::map<std::string, std::int64_t>>& counter_sets);

// The parent keys a whole GPU answers to (the counter sets it consumes, its UUID), so its partitions are
// known to share it rather than to bring a GPU of their own.
std::vector<std::string> ParentKeysOf(const std::string& driver, const std::string& pool, const Device& device);

// The device's productName as GPU feature discovery writes nvidia.com/gpu.product (spaces as dashes),
// so a DRA node and a device-plugin node of one model are one model to a pool; "" when it has none.
std::string ModelOf(const std::string& driver, const Device& device);

}  // namespace gangplank::cache::dra

// The GPUs a pod gets, and a node offers, through Dynamic Resource Allocation, as the cache's DRA
// inventory (cache/dra/gpu_inventory.h) reads them from ResourceSlices, DeviceClasses and ResourceClaims.
// Plain values carried on PodInfo and NodeInfo, so the conversion to engine requests and node specs
// (convert.h) counts them with the device plugin's GPUs and nothing downstream sees the difference.
#pragma once

#include <string>
#include <vector>

#include "engine/resources.h"

namespace gangplank::cache {

// A device allocated to a pod's claim (its own, or the one the scheduler made for a DRA-backed extended
// resource), for fault recovery: a fenced device a pod holds is a fault of that pod.
struct HeldDevice {
  std::string node;
  std::string device;  // "<driver>/<pool>/<device>".
  friend bool operator==(const HeldDevice&, const HeldDevice&) = default;
};

struct DraDemand {
  int whole_gpus = 0;                  // Whole GPUs its claims ask for (or were allocated).
  engine::MilliGpu partition_milli = 0;  // Partitions (MIG) by their share of a GPU, summed.
  // GPU models the matching devices have (GPU feature discovery's spelling); empty: any.
  std::vector<std::string> models;
  // Why the claims cannot be satisfied as written (an unknown class, a missing claim or template, a
  // selector that fails): a pod with a problem is not planned, and its gang says why.
  std::vector<std::string> problems;
  // Every GPU claim of the pod is allocated: the counts above are the allocation's, not an estimate.
  bool allocated = false;
  std::vector<HeldDevice> held;
  friend bool operator==(const DraDemand&, const DraDemand&) = default;
};

// A node's GPUs from DRA devices of the classes gangplank counts.
struct NodeDraGpus {
  int gpus = 0;           // Whole GPUs, and GPUs partitioned into MIG devices, not fenced by a taint.
  std::string model;      // From the devices' productName, as GPU feature discovery spells it.
  // Devices fenced by a NoSchedule/NoExecute taint: "<driver>/<pool>/<device>" and what the taint says.
  struct Fenced {
    std::string device;
    std::string taint;  // "key=value:Effect"
    std::string since;  // RFC 3339 timeAdded, may be empty.
    friend bool operator==(const Fenced&, const Fenced&) = default;
  };
  std::vector<Fenced> fenced;
  friend bool operator==(const NodeDraGpus&, const NodeDraGpus&) = default;
};

}  // namespace gangplank::cache

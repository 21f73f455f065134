// The cluster's GPUs as Dynamic Resource Allocation publishes them, and what pods ask of them through
// claims: the one place that turns ResourceSlices, DeviceClasses, ResourceClaims and their templates into
// GPU counts, so the extender, the operator and every policy count a DRA GPU like a device-plugin GPU.
//
// What counts as a GPU: a device that matches a governed DeviceClass, i.e. one the GPU pools name
// (GPUPool spec.deviceClasses; NVIDIA's gpu.nvidia.com and mig.nvidia.com by default) or one whose
// extendedResourceName is nvidia.com/gpu. A whole GPU is one engine GPU; a partition (a MIG device: it
// names a parent or consumes part of a counter set, KEP-4815) is a share of its parent's GPU, by the
// memory slices it takes (docs/cluster-admins.md says so to admins). A fenced device (a NoSchedule or
// NoExecute device taint) offers nothing.
//
// What a pod asks: each claim request (its own claim, or one from a template), by the devices its class
// and selectors match anywhere in the cluster; firstAvailable counts its largest alternative until the
// scheduler allocates one; once allocated, what was allocated. A named claim shared by several pods is
// charged to each of them. DRA-backed extended resources (nvidia.com/gpu in containers) are counted from
// the containers (convert.h), and the claim the scheduler makes for them only says which devices the pod
// holds. Thread-safe: informer handlers update it while requests read it.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "cache/dra/device_selectors.h"
#include "cache/dra/dra_objects.h"
#include "cache/objects/dra_gpus.h"
#include "cache/objects/kube_objects.h"

namespace gangplank::cache::dra {

// What an update changed: the nodes whose GPUs, and the pods whose demand, must be read again.
struct Affected {
  bool all = false;  // Every node and every pod that uses DRA.
  std::set<std::string> nodes;
  std::set<std::string> pods;  // By UID.
  bool empty() const { return !all && nodes.empty() && pods.empty(); }
};

// The classes gangplank counts when no GPUPool names any.
const std::vector<std::string>& DefaultGpuDeviceClasses();

class GpuInventory {
 public:
  GpuInventory();

  Affected UpsertSlice(ResourceSlice slice);
  Affected DeleteSlice(const std::string& name);
  Affected UpsertClass(DeviceClass device_class);
  Affected DeleteClass(const std::string& name);
  Affected UpsertClaim(ResourceClaim claim);
  Affected DeleteClaim(const std::string& namespace_, const std::string& name);
  Affected UpsertTemplate(ResourceClaimTemplate claim_template);
  Affected DeleteTemplate(const std::string& namespace_, const std::string& name);
  // The device classes the GPU pools name (an empty list: the defaults).
  Affected SetGpuClasses(std::vector<std::string> classes);

  // Keeps the index of which pods use which claims and templates (call on every pod event).
  void NotePod(const PodInfo& pod);
  void ForgetPod(const std::string& uid);
  // The pod's namespace/name by UID, for callers that refresh affected pods from an informer's cache.
  std::string PodKey(const std::string& uid) const;

  NodeDraGpus GpusOf(std::string_view node) const;
  // What the pod's claims and DRA extended resources come to; null when it uses none of them.
  std::shared_ptr<const DraDemand> DemandOf(const PodInfo& pod) const;

  // For status and tests.
  size_t slice_count() const;
  size_t device_count() const;

 private:
  // A device as counted: its slice's node, whether it is a GPU (whole or part), its share and model.
  struct DeviceEntry {
    std::string slice;  // The slice publishing it: a pool's next generation replaces it under the same key.
    std::int64_t generation = 0;
    std::string driver;
    std::string pool;
    std::string node;
    const Device* device = nullptr;
    bool gpu = false;        // Matches a governed class.
    bool partition = false;  // A part of a GPU (MIG).
    engine::MilliGpu share = engine::kMilliPerGpu;
    std::string parent;      // A partition's parent GPU ("<driver>/<pool>/<counter set or uuid>").
    std::string model;
    bool fenced = false;
  };
  struct Charge {
    int whole = 0;
    engine::MilliGpu milli = 0;
    std::set<std::string> models;
    std::int64_t Total() const { return std::int64_t{whole} * engine::kMilliPerGpu + milli; }
  };

  void ReindexLocked();
  void IndexSliceLocked(const ResourceSlice& slice, const std::vector<const DeviceClass*>& governed);
  void UnindexSliceLocked(const ResourceSlice& slice);
  std::vector<const DeviceClass*> GovernedClassesLocked() const;
  bool Governed(const DeviceClass& c) const;
  std::vector<const DeviceEntry*> CandidatesLocked(const DeviceAlternative& alternative, std::string* problem) const;
  Charge ChargeOfRequestLocked(const DeviceRequest& request, std::vector<std::string>& problems) const;
  Charge ChargeOfAllocationLocked(const ResourceClaim& claim, std::vector<HeldDevice>& held) const;
  void AddClaimLocked(const ResourceClaim* claim, const std::vector<DeviceRequest>& requests, const std::string& what,
                      Charge& total, DraDemand& demand) const;
  std::set<std::string> PodsUsingLocked(const std::string& key) const;
  std::set<std::string> UnallocatedPodsLocked() const;

  mutable std::mutex mu_;
  std::vector<std::string> pool_classes_;  // From the GPU pools.
  std::map<std::string, ResourceSlice> slices_;               // By name.
  std::map<std::string, DeviceClass> classes_;                // By name.
  std::map<std::string, ResourceClaim> claims_;               // By namespace/name.
  std::map<std::string, ResourceClaimTemplate> templates_;    // By namespace/name.
  // Devices some claim holds (driver/pool/device -> claims holding it): a fenced one still counts as the
  // node's until it is released, so the pod on it stays accounted while its gang is restarted.
  std::map<std::string, int> allocated_;
  void CountAllocationLocked(const ResourceClaim& claim, int sign);
  // The nodes whose fenced devices a claim's allocation holds: what they offer changes with it.
  std::set<std::string> FencedNodesOfLocked(const ResourceClaim& claim) const;
  std::map<std::string, DeviceEntry> devices_;                // By driver/pool/device.
  std::map<std::string, std::set<std::string>> node_devices_;     // Node -> device keys.
  // Counter sets of partitionable devices by driver/pool/set: counter -> amount.
  std::map<std::string, std::map<std::string, std::int64_t>> counter_sets_;
  // Pods that use DRA: UID -> namespace/name, and the claim and template keys they reference.
  struct PodUse {
    std::string key;
    std::vector<std::string> references;  // "claim:<ns>/<name>" and "template:<ns>/<name>"
  };
  std::map<std::string, PodUse> pods_;
  std::map<std::string, std::set<std::string>> users_;  // Reference -> pod UIDs.
  // Candidate devices per class and selectors, until the devices or classes change.
  mutable std::map<std::string, std::vector<const DeviceEntry*>> candidates_;
  mutable DeviceSelectors selectors_;
};

}  // namespace gangplank::cache::dra

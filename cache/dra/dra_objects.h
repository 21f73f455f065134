// The parts of Dynamic Resource Allocation objects (resource.k8s.io/v1) gangplank reads: the devices
// drivers publish in ResourceSlices, the DeviceClasses that name them, and the ResourceClaims (and their
// templates) pods ask through, with what the scheduler allocated. Decoded from the objects' JSON; a field
// of the wrong type is a DecodeError naming its path, so one bad object is reported and skipped.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace gangplank::cache::dra {

// One device attribute: exactly one of the typed values is set (lists count as their first element's
// kind; nothing gangplank reads is a list).
struct AttributeValue {
  enum class Kind { kBool, kInt, kString, kVersion, kList } kind = Kind::kString;
  bool bool_value = false;
  std::int64_t int_value = 0;
  std::string text;  // kString or kVersion.
  bool operator==(const AttributeValue&) const = default;
};

// A device taint (spec.devices[].taints): NoSchedule keeps new claims off the device, NoExecute also
// evicts the pods using it, None only informs.
struct DeviceTaint {
  std::string key;
  std::string value;
  std::string effect;
  std::string time_added;  // RFC 3339, may be empty.
  bool operator==(const DeviceTaint&) const = default;
  // NoSchedule or NoExecute: the device takes no new claims.
  bool Fences() const { return effect == "NoSchedule" || effect == "NoExecute"; }
};

// What a partitionable device takes from a counter set (KEP-4815): counter name -> amount.
struct CounterConsumption {
  std::string counter_set;
  std::map<std::string, std::int64_t> counters;
  bool operator==(const CounterConsumption&) const = default;
};

struct Device {
  std::string name;
  // Fully qualified attribute name ("gpu.nvidia.com/type"; a name without a domain belongs to the driver's).
  std::map<std::string, AttributeValue> attributes;
  // Fully qualified capacity name -> amount in milli-units (as Kubernetes quantities compare).
  std::map<std::string, std::int64_t> capacity_milli;
  std::vector<CounterConsumption> consumes;
  std::vector<DeviceTaint> taints;
  bool operator==(const Device&) const = default;

  // The attribute `name` of the driver's own domain, or nullptr.
  const AttributeValue* DriverAttribute(const std::string& driver, const std::string& name) const;
};

struct ResourceSlice {
  std::string name;
  std::string driver;
  std::string pool;
  std::int64_t pool_generation = 0;
  std::string node_name;  // Empty for slices not bound to one node (nodeSelector, allNodes): not counted.
  std::vector<Device> devices;
  // Counter sets (KEP-4815) by name: counter -> amount. A slice has either devices or counter sets.
  std::map<std::string, std::map<std::string, std::int64_t>> counter_sets;
  bool operator==(const ResourceSlice&) const = default;
};

struct DeviceClass {
  std::string name;
  std::vector<std::string> selectors;   // CEL expressions; a device must match every one.
  std::string extended_resource_name;   // Pods asking this name in containers are served by the class.
  bool operator==(const DeviceClass&) const = default;
};

// One way to satisfy a device request: `exactly`, or one of `firstAvailable`'s sub-requests.
struct DeviceAlternative {
  std::string name;  // The request's name, or "<request>/<subrequest>".
  std::string device_class;
  std::vector<std::string> selectors;
  bool all = false;        // allocationMode All: every matching device on the node.
  std::int64_t count = 1;  // allocationMode ExactCount.
  bool operator==(const DeviceAlternative&) const = default;
};

struct DeviceRequest {
  std::string name;
  std::vector<DeviceAlternative> alternatives;  // One for `exactly`, several for `firstAvailable`.
  bool operator==(const DeviceRequest&) const = default;
};

// One device the scheduler allocated to a claim (status.allocation.devices.results[]).
struct AllocatedDevice {
  std::string request;
  std::string driver;
  std::string pool;
  std::string device;
  bool operator==(const AllocatedDevice&) const = default;
};

struct ResourceClaim {
  std::string namespace_;
  std::string name;
  std::string uid;
  std::vector<DeviceRequest> requests;
  bool allocated = false;
  std::vector<AllocatedDevice> results;
  std::vector<std::string> reserved_for;  // UIDs of the pods using it (status.reservedFor).
  bool operator==(const ResourceClaim&) const = default;
};

struct ResourceClaimTemplate {
  std::string namespace_;
  std::string name;
  std::vector<DeviceRequest> requests;
  bool operator==(const ResourceClaimTemplate&) const = default;
};

// Decoders of whole objects. Throw DecodeError (cache/objects/decode_error.h) naming the field.
ResourceSlice ResourceSliceFromObject(const nlohmann::json& object);
DeviceClass DeviceClassFromObject(const nlohmann::json& object);
ResourceClaim ResourceClaimFromObject(const nlohmann::json& object);
ResourceClaimTemplate ResourceClaimTemplateFromObject(const nlohmann::json& object);

}  // namespace gangplank::cache::dra

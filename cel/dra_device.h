// The `device` variable of a Kubernetes DRA device selector (DeviceClass and ResourceClaim `selectors:
// - cel: expression`), built from a device as its ResourceSlice publishes it, the way
// k8s.io/dynamic-resource-allocation/cel does: `device.driver`, `device.allowMultipleAllocations`,
// `device.attributes[domain][id]`, `device.capacity[domain][id]` (a quantity). A name without a domain is in
// the driver's domain; a domain the device has nothing in reads as an empty map, so a missing attribute
// is "no such key: id" and `"domain" in device.attributes` is false.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cel/program.h"
#include "cel/value.h"

namespace gangplank::cel {

inline constexpr std::string_view kDraDeviceVariable = "device";

struct DraDevice {
  std::string driver;
  bool allow_multiple_allocations = false;
  // Qualified name ("gpu.nvidia.com/productName", or "productName" in the driver's domain) to the value:
  // a bool, int, string or Semver, or a list of one of them.
  std::vector<std::pair<std::string, Value>> attributes;
  std::vector<std::pair<std::string, Quantity>> capacity;
};

// The value to bind as `device`.
Value DraDeviceValue(const DraDevice& device);
// An activation binding `device` alone.
Activation DraActivation(const DraDevice& device);
// How Kubernetes compiles a selector: the `device` variable only, at most 10 KiB, capped at 1,000,000
// steps (CELSelectorExpressionMaxCost; steps are not cel-go's cost units, see cel/README.md).
CompileOptions DraSelectorOptions();

}  // namespace gangplank::cel

// DRA device selectors: the CEL expressions of DeviceClasses and claim requests, evaluated against a
// device the way kube-scheduler's structured allocator does (a `device` variable with `driver`,
// `attributes` and `capacity` by domain, Kubernetes' quantity and semver functions). Compiled programs
// are kept by expression text. Not thread-safe: its owner serialises calls.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "cache/dra/dra_objects.h"

namespace gangplank::cel {
class Program;
}

namespace gangplank::cache::dra {

class DeviceSelectors {
 public:
  DeviceSelectors();
  ~DeviceSelectors();
  DeviceSelectors(const DeviceSelectors&) = delete;
  DeviceSelectors& operator=(const DeviceSelectors&) = delete;

  // Whether the device of `driver` matches the expression. An expression that does not compile, or
  // fails on this device (a missing attribute, a wrong type), matches nothing and says why in *error.
  bool Matches(const std::string& expression, const std::string& driver, const Device& device, std::string* error);

 private:
  struct Compiled;
  const Compiled& Compile(const std::string& expression);
  std::map<std::string, std::unique_ptr<Compiled>> programs_;
};

}  // namespace gangplank::cache::dra

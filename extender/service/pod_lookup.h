// What the bind verb checks a binding against: the pod as gangplank's pod informer knows it, by
// namespace and name. Behind an interface so the HTTP routes do not depend on the Kubernetes client
// (informer_pod_lookup.h reads the informer's store; tests give their own).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gangplank::extender {

struct KnownPod {
  std::string uid;
  std::string scheduler_name;
  std::vector<std::string> resources;  // Names of the resources its containers request or limit.
};

class PodLookup {
 public:
  virtual ~PodLookup() = default;
  // The pod namespace/name as last listed or watched; nullopt when the informer does not know it.
  // Must not block: it runs on the HTTP server's io thread.
  virtual std::optional<KnownPod> Find(std::string_view namespace_, std::string_view name) const = 0;
};

}  // namespace gangplank::extender

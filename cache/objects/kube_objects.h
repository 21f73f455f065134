// The parts of Kubernetes Pod and Node objects gangplank reads (the extender from request bodies, the
// cache from informers). Everything else in the objects (managedFields, images, ...) is skipped.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/node.h"
#include "engine/request.h"

namespace gangplank::cache {

// Resource name -> quantity text, as in a ResourceList ("cpu": "500m").
using ResourceList = std::vector<std::pair<std::string, std::string>>;

struct ContainerResources {
  ResourceList requests;
  ResourceList limits;
};

// The controlling owner reference of an object (ownerReferences[] with controller: true).
struct OwnerRef {
  std::string api_version;
  std::string kind;
  std::string name;
  std::string uid;
};

struct PodInfo {
  std::string name;
  std::string namespace_;
  std::string uid;
  std::string resource_version;
  std::string creation_timestamp;  // RFC 3339.
  std::optional<OwnerRef> controller;
  std::map<std::string, std::string> labels;
  std::map<std::string, std::string> annotations;
  bool deleting = false;  // metadata.deletionTimestamp is set.

  std::string node_name;  // spec.nodeName: bound when non-empty.
  std::string scheduler_name;
  std::vector<std::string> scheduling_gates;
  std::int32_t priority = 0;
  std::map<std::string, std::string> node_selector;
  std::vector<engine::Toleration> tolerations;
  std::vector<ContainerResources> containers;
  std::vector<ContainerResources> init_containers;
  ResourceList overhead;

  std::string phase;  // status.phase: Pending, Running, Succeeded, Failed, Unknown.
  std::string nominated_node_name;

  std::string Key() const { return namespace_ + "/" + name; }
};

struct NodeInfo {
  std::string name;
  std::map<std::string, std::string> labels;
  std::map<std::string, std::string> annotations;
  std::map<std::string, std::string> conditions;  // status.conditions: type -> status ("True", ...)
  ResourceList allocatable;
  std::vector<engine::Taint> taints;
  bool unschedulable = false;
};

}  // namespace gangplank::cache

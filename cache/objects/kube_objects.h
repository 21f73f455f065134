// The parts of Kubernetes Pod and Node objects the extender reads. Everything else in the objects
// (managedFields, status conditions, images, ...) is skipped while decoding.
#pragma once

#include <cstdint>
#include <map>
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

struct PodInfo {
  std::string name;
  std::string namespace_;
  std::string uid;
  std::map<std::string, std::string> labels;
  std::map<std::string, std::string> annotations;
  bool deleting = false;  // metadata.deletionTimestamp is set.

  std::string node_name;  // spec.nodeName: bound when non-empty.
  std::string scheduler_name;
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
  ResourceList allocatable;
  std::vector<engine::Taint> taints;
  bool unschedulable = false;
};

}  // namespace gangplank::cache

// Request bodies shaped exactly like kube-scheduler's: Pod and Node objects with the fields, field
// order and nulls Go's encoding/json writes for informer objects (managedFields included), wrapped in
// ExtenderArgs / ExtenderPreemptionArgs with the unused alternative as explicit null, and <, >, &
// escaped as \u003c, \u003e, \u0026.
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace gangplank::extender::testing {

using Json = nlohmann::ordered_json;

struct ContainerSpec {
  std::map<std::string, std::string> requests;
  std::map<std::string, std::string> limits;
};

struct PodSpecFixture {
  std::string name = "train-0";
  std::string namespace_ = "team-a";
  std::string uid = "6c4a1b9e-0000-4000-8000-000000000001";
  std::string node_name;
  std::map<std::string, std::string> labels;
  std::map<std::string, std::string> annotations;
  std::vector<ContainerSpec> containers{ContainerSpec{{{"cpu", "4"}, {"memory", "16Gi"}, {"nvidia.com/gpu", "1"}},
                                                      {{"nvidia.com/gpu", "1"}}}};
  std::vector<ContainerSpec> init_containers;
  std::map<std::string, std::string> node_selector;
  std::vector<std::map<std::string, std::string>> tolerations;
  int priority = 0;
  std::string phase = "Pending";
};

struct NodeSpecFixture {
  std::string name = "gpu-node-0";
  std::string cpu = "95690m";
  std::string memory = "1056375928Ki";
  std::string gpus = "8";
  std::map<std::string, std::string> labels;
  std::vector<std::map<std::string, std::string>> taints;
  bool unschedulable = false;
  int images = 4;  // Status images make real node objects large.
};

// Go's HTML-safe escaping of a compact dump: every <, > and & is inside a string (they are not JSON
// structure), so replacing them all is exact.
inline std::string GoJson(const Json& j) {
  const std::string plain = j.dump();
  std::string out;
  out.reserve(plain.size() + plain.size() / 16);
  for (char c : plain) {
    if (c == '<') out += "\\u003c";
    else if (c == '>') out += "\\u003e";
    else if (c == '&') out += "\\u0026";
    else out += c;
  }
  return out;
}

inline Json ManagedFields(const std::string& manager) {
  Json entry;
  entry["manager"] = manager;
  entry["operation"] = "Update";
  entry["apiVersion"] = "v1";
  entry["time"] = "2026-11-21T10:00:00Z";
  entry["fieldsType"] = "FieldsV1";
  entry["fieldsV1"] = Json{{"f:metadata", Json{{"f:labels", Json{{".", Json::object()}}}}},
                           {"f:spec", Json{{"f:containers", Json{{"k:{\"name\":\"main\"}", Json::object()}}}}}};
  return Json::array({entry});
}

inline Json ResourceMap(const std::map<std::string, std::string>& m) {
  Json j = Json::object();
  for (const auto& [k, v] : m) j[k] = v;
  return j;
}

inline Json StringMap(const std::map<std::string, std::string>& m) { return ResourceMap(m); }

inline Json GoContainer(const std::string& name, const ContainerSpec& c) {
  Json j;
  j["name"] = name;
  j["image"] = "nvcr.io/nvidia/pytorch:24.01-py3";
  j["command"] = Json::array({"torchrun", "--nproc-per-node=1", "train.py"});
  Json resources;
  if (!c.limits.empty()) resources["limits"] = ResourceMap(c.limits);
  if (!c.requests.empty()) resources["requests"] = ResourceMap(c.requests);
  j["resources"] = resources.is_null() ? Json::object() : resources;
  j["terminationMessagePath"] = "/dev/termination-log";
  j["terminationMessagePolicy"] = "File";
  j["imagePullPolicy"] = "IfNotPresent";
  return j;
}

inline Json GoPod(const PodSpecFixture& p) {
  Json metadata;
  metadata["name"] = p.name;
  metadata["namespace"] = p.namespace_;
  metadata["uid"] = p.uid;
  metadata["resourceVersion"] = "48213";
  metadata["creationTimestamp"] = "2026-11-21T10:00:00Z";
  if (!p.labels.empty()) metadata["labels"] = StringMap(p.labels);
  if (!p.annotations.empty()) metadata["annotations"] = StringMap(p.annotations);
  metadata["managedFields"] = ManagedFields("kube-controller-manager");

  Json spec;
  spec["volumes"] = Json::array({Json{{"name", "kube-api-access-x"},
                                      {"projected", Json{{"sources", Json::array()}, {"defaultMode", 420}}}}});
  if (!p.init_containers.empty()) {
    spec["initContainers"] = Json::array();
    for (size_t i = 0; i < p.init_containers.size(); ++i) {
      spec["initContainers"].push_back(GoContainer("init-" + std::to_string(i), p.init_containers[i]));
    }
  }
  spec["containers"] = Json::array();
  for (size_t i = 0; i < p.containers.size(); ++i) {
    spec["containers"].push_back(GoContainer(i == 0 ? "main" : "side-" + std::to_string(i), p.containers[i]));
  }
  spec["restartPolicy"] = "Never";
  spec["terminationGracePeriodSeconds"] = 30;
  spec["dnsPolicy"] = "ClusterFirst";
  if (!p.node_selector.empty()) spec["nodeSelector"] = StringMap(p.node_selector);
  spec["serviceAccountName"] = "default";
  if (!p.node_name.empty()) spec["nodeName"] = p.node_name;
  spec["securityContext"] = Json::object();
  spec["schedulerName"] = "gangplank";
  Json tolerations = Json::array();
  for (const auto& t : p.tolerations) {
    Json tj;
    for (const auto& [k, v] : t) tj[k] = v;
    tolerations.push_back(tj);
  }
  tolerations.push_back(Json{{"key", "node.kubernetes.io/not-ready"}, {"operator", "Exists"},
                             {"effect", "NoExecute"}, {"tolerationSeconds", 300}});
  spec["tolerations"] = tolerations;
  spec["priority"] = p.priority;
  spec["enableServiceLinks"] = true;
  spec["preemptionPolicy"] = "PreemptLowerPriority";

  Json status;
  status["phase"] = p.phase;
  status["conditions"] = Json::array({Json{{"type", "PodScheduled"},
                                           {"status", "False"},
                                           {"lastProbeTime", nullptr},
                                           {"lastTransitionTime", "2026-11-21T10:00:01Z"},
                                           {"reason", "Unschedulable"},
                                           {"message", "0/3 nodes are available: 3 Insufficient nvidia.com/gpu. "
                                                       "preemption: 0/3 nodes are available: <none> & more"}}});
  status["qosClass"] = "Burstable";

  Json pod;
  pod["metadata"] = metadata;
  pod["spec"] = spec;
  pod["status"] = status;
  return pod;
}

inline Json GoNode(const NodeSpecFixture& n) {
  Json metadata;
  metadata["name"] = n.name;
  metadata["uid"] = "node-uid-" + n.name;
  metadata["resourceVersion"] = "9912";
  metadata["creationTimestamp"] = "2026-11-01T00:00:00Z";
  Json labels = StringMap(n.labels);
  labels["kubernetes.io/hostname"] = n.name;
  labels["kubernetes.io/os"] = "linux";
  metadata["labels"] = labels;
  metadata["annotations"] = Json{{"node.alpha.kubernetes.io/ttl", "0"},
                                 {"volumes.kubernetes.io/controller-managed-attach-detach", "true"}};
  metadata["managedFields"] = ManagedFields("kubelet");

  Json spec;
  spec["podCIDR"] = "10.244.1.0/24";
  spec["podCIDRs"] = Json::array({"10.244.1.0/24"});
  spec["providerID"] = "gce://project/zone/" + n.name;
  if (n.unschedulable) spec["unschedulable"] = true;
  if (!n.taints.empty()) {
    Json taints = Json::array();
    for (const auto& t : n.taints) {
      Json tj;
      for (const auto& [k, v] : t) tj[k] = v;
      taints.push_back(tj);
    }
    spec["taints"] = taints;
  }

  Json resources{{"cpu", n.cpu}, {"ephemeral-storage", "101203028Ki"}, {"hugepages-1Gi", "0"},
                 {"memory", n.memory}, {"nvidia.com/gpu", n.gpus}, {"pods", "110"}};
  Json status;
  status["capacity"] = resources;
  status["allocatable"] = resources;
  status["conditions"] = Json::array({Json{{"type", "Ready"},
                                           {"status", "True"},
                                           {"lastHeartbeatTime", "2026-11-21T10:00:00Z"},
                                           {"lastTransitionTime", "2026-11-01T00:00:00Z"},
                                           {"reason", "KubeletReady"},
                                           {"message", "kubelet is posting ready status"}}});
  status["addresses"] = Json::array({Json{{"type", "InternalIP"}, {"address", "10.0.0.12"}},
                                     Json{{"type", "Hostname"}, {"address", n.name}}});
  status["daemonEndpoints"] = Json{{"kubeletEndpoint", Json{{"Port", 10250}}}};
  status["nodeInfo"] = Json{{"machineID", "ec2a"}, {"kernelVersion", "6.1.0-13-cloud-amd64"},
                            {"osImage", "Debian GNU/Linux 12 (bookworm)"}, {"containerRuntimeVersion", "containerd://1.7.2"},
                            {"kubeletVersion", "v1.31.9"}, {"operatingSystem", "linux"}, {"architecture", "amd64"}};
  Json images = Json::array();
  for (int i = 0; i < n.images; ++i) {
    images.push_back(Json{{"names", Json::array({"nvcr.io/nvidia/pytorch@sha256:" + std::string(64, 'a' + i % 6),
                                                 "nvcr.io/nvidia/pytorch:24.0" + std::to_string(i) + "-py3"})},
                          {"sizeBytes", 9876543210LL + i}});
  }
  status["images"] = images;

  Json node;
  node["metadata"] = metadata;
  node["spec"] = spec;
  node["status"] = status;
  return node;
}

// ExtenderArgs for nodeCacheCapable=true: {"Pod":...,"Nodes":null,"NodeNames":[...]}.
inline std::string FilterArgsByName(const Json& pod, const std::vector<std::string>& names) {
  Json args;
  args["Pod"] = pod;
  args["Nodes"] = nullptr;
  args["NodeNames"] = names;
  return GoJson(args);
}

// ExtenderArgs for nodeCacheCapable=false: {"Pod":...,"Nodes":{"metadata":{},"items":[...]},"NodeNames":null}.
inline std::string FilterArgsWithNodes(const Json& pod, const std::vector<Json>& nodes) {
  Json args;
  args["Pod"] = pod;
  args["Nodes"] = Json{{"metadata", Json::object()}, {"items", nodes}};
  args["NodeNames"] = nullptr;
  return GoJson(args);
}

// ExtenderPreemptionArgs for nodeCacheCapable=true (UIDs).
inline std::string PreemptArgsMeta(const Json& pod, const std::map<std::string, std::vector<std::string>>& victims,
                                   int pdb_violations = 0) {
  Json args;
  args["Pod"] = pod;
  args["NodeNameToVictims"] = nullptr;
  Json meta = Json::object();
  for (const auto& [node, uids] : victims) {
    Json pods = Json::array();
    for (const auto& uid : uids) pods.push_back(Json{{"UID", uid}});
    meta[node] = Json{{"Pods", pods}, {"NumPDBViolations", pdb_violations}};
  }
  args["NodeNameToMetaVictims"] = meta;
  return GoJson(args);
}

// ExtenderPreemptionArgs for nodeCacheCapable=false (full victim pods).
inline std::string PreemptArgsFull(const Json& pod, const std::map<std::string, std::vector<Json>>& victims) {
  Json args;
  args["Pod"] = pod;
  Json full = Json::object();
  for (const auto& [node, pods] : victims) full[node] = Json{{"Pods", pods}, {"NumPDBViolations", 0}};
  args["NodeNameToVictims"] = full;
  args["NodeNameToMetaVictims"] = nullptr;
  return GoJson(args);
}

}  // namespace gangplank::extender::testing

// Small builders for cluster-state tests (cache, extender and operator suites): nodes and pods as the informers would deliver them.
#pragma once

#include <map>
#include <string>

#include "cache/crd/pool_config.h"
#include "cache/objects/kube_objects.h"

namespace gangplank::cache::testing {

inline NodeInfo GpuNode(const std::string& name, int gpus, const std::string& model = "A100",
                        std::map<std::string, std::string> labels = {}) {
  NodeInfo n;
  n.name = name;
  n.labels = std::move(labels);
  n.labels["nvidia.com/gpu.product"] = model;
  n.allocatable = {{"cpu", "64"}, {"memory", "512Gi"}, {"nvidia.com/gpu", std::to_string(gpus)}};
  return n;
}

struct PodOptions {
  std::string node{};          // spec.nodeName
  std::string planned{};       // gangplank.io/planned-node
  std::string queue{};
  std::string gang{};
  int gpus = 1;
  int gpu_milli = 0;         // > 0: a sharing pod
  std::string cpu = "1";
  int priority = 0;
  std::string phase = "Running";
  std::string models{};        // gangplank.io/gpu-models
};

inline PodInfo GpuPod(const std::string& name, const PodOptions& o = {}) {
  PodInfo p;
  p.name = name;
  p.namespace_ = "ml";
  p.uid = "uid-" + name;
  p.node_name = o.node;
  p.priority = o.priority;
  p.phase = o.node.empty() && o.phase == "Running" ? "Pending" : o.phase;
  if (!o.planned.empty()) p.annotations["gangplank.io/planned-node"] = o.planned;
  if (!o.models.empty()) p.annotations["gangplank.io/gpu-models"] = o.models;
  if (!o.queue.empty()) p.labels["gangplank.io/queue"] = o.queue;
  if (!o.gang.empty()) p.labels["gangplank.io/gang"] = o.gang;
  ContainerResources c;
  c.requests = {{"cpu", o.cpu}, {"memory", "1Gi"}};
  if (o.gpu_milli > 0) c.requests.emplace_back("gangplank.io/gpu-milli", std::to_string(o.gpu_milli));
  else if (o.gpus > 0) c.requests.emplace_back("nvidia.com/gpu", std::to_string(o.gpus));
  p.containers.push_back(std::move(c));
  return p;
}

// A GPU pool selecting every node with GPUs (queue quotas are per pool).
inline PoolConfig WholeClusterPool(const std::string& name = "pool") {
  PoolConfig p;
  p.name = name;
  return p;
}

}  // namespace gangplank::cache::testing

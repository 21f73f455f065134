// ObjectReader on the API server: the object that defines a gang (PodGroup, Job, JobSet, PyTorchJob,
// RayCluster, ...) read by apiVersion and kind. The resource is the kind's lower-case plural, which
// holds for every kind gangplank reads.
#pragma once

#include <memory>

#include "kube/client.h"
#include "operator/gangs/gang_size_resolver.h"

namespace gangplank::op {

class KubeObjectReader : public ObjectReader {
 public:
  explicit KubeObjectReader(std::shared_ptr<kube::Client> client) : client_(std::move(client)) {}

  std::optional<nlohmann::json> Get(const std::string& api_version, const std::string& kind, const std::string& namespace_,
                                    const std::string& name) override;

 private:
  std::shared_ptr<kube::Client> client_;
};

// "batch/v1" + "Job" -> {batch, v1, jobs, Job, namespaced}.
kube::ResourceDescriptor DescriptorOf(const std::string& api_version, const std::string& kind);

}  // namespace gangplank::op

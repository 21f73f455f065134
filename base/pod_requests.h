// A pod's effective resource request as Kubernetes computes it (k8s.io/component-helpers resource
// PodRequests, KEP-753 sidecars, KEP-2837 pod-level resources): the one rule behind every place gangplank
// reads what a pod asks (the informer's pods, the extender's arguments, the webhook, the dry run), so a
// pod is charged for exactly what the kubelet lets it hold.
//
//   app      = sum over app containers + sum over sidecars (init containers with restartPolicy Always)
//   init     = max over regular init containers of (it + the sidecars started before it)
//   request  = max(app, init) per resource; pod-level requests (cpu, memory, hugepages) replace it
//              for those resources; then + overhead.
// A container's limit stands in for its missing request (the API server's defaulting). Amounts are in
// the caller's unit (milli-units, whole units), saturating at INT64_MAX.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace gangplank::base {

using Amounts = std::vector<std::pair<std::string, std::int64_t>>;

struct ContainerAmounts {
  Amounts requests;
  Amounts limits;
  bool sidecar = false;  // An init container with restartPolicy: Always (runs beside the app containers).
};

Amounts PodRequests(const std::vector<ContainerAmounts>& containers, const std::vector<ContainerAmounts>& init_containers,
                    const ContainerAmounts* pod_level, const Amounts& overhead);

// Whether pod-level resources (spec.resources) may set this resource: cpu, memory and hugepages-*.
bool PodLevelResource(const std::string& name);

}  // namespace gangplank::base

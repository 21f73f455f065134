#include "extender/service/informer_pod_lookup.h"

#include <string>

namespace gangplank::extender {

std::optional<KnownPod> InformerPodLookup::Find(std::string_view namespace_, std::string_view name) const {
  const auto pod = pods_.Get(std::string(namespace_) + "/" + std::string(name));
  if (!pod) return std::nullopt;
  KnownPod known{pod->meta.uid, pod->scheduler_name, {}};
  // The effective requests: a limit standing in for a missing request is among them (kube::Pod).
  for (const kube::ResourceAmount& amount : pod->requests) known.resources.push_back(amount.name);
  return known;
}

}  // namespace gangplank::extender

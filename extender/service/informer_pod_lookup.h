// PodLookup on the pod informer's store (the extender's SharedInformers): an in-memory look-up, no API
// call, so the bind verb may check on the io thread.
#pragma once

#include "extender/service/pod_lookup.h"
#include "kube/informer.h"
#include "kube/objects.h"

namespace gangplank::extender {

class InformerPodLookup final : public PodLookup {
 public:
  explicit InformerPodLookup(const kube::Informer<kube::Pod>& pods) : pods_(pods) {}
  std::optional<KnownPod> Find(std::string_view namespace_, std::string_view name) const override;

 private:
  const kube::Informer<kube::Pod>& pods_;
};

}  // namespace gangplank::extender

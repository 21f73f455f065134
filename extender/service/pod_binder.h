// What the bind verb needs from the outside world: creating a pod's Binding in the API server. Behind
// an interface so the HTTP routes do not depend on the Kubernetes client (kube_binder.h implements it).
#pragma once

#include <functional>
#include <string>

#include "extender/protocol/extender_types.h"

namespace gangplank::extender {

class PodBinder {
 public:
  virtual ~PodBinder() = default;
  // Binds args.pod_namespace/args.pod_name (UID args.pod_uid) to args.node without blocking the caller;
  // `done` runs once, on another thread, with "" on success or what went wrong.
  virtual void Bind(ExtenderBindingArgs args, std::function<void(std::string error)> done) = 0;
};

}  // namespace gangplank::extender

// The bind verb (kube-scheduler's bindVerb): kube-scheduler hands the binding of its chosen node to the
// extender, which creates the Binding (PodBinder) and, once the API server accepted it, records the pod
// as bound in the cache at once (ClusterState::AssumeBound). Without this the cache learns of the
// binding only from the pod informer, and a filter call in between could give the same GPU share to
// another pod. The reply is ExtenderBindingResult: 200 with Error "" or the reason it failed. Only the
// bindings BindRefusal (bind_rules.h) allows are carried out: others are answered with its reason and
// never reach the API server.
#pragma once

#include <string>
#include <utility>

#include "extender/service/bind_rules.h"
#include "extender/service/extender_metrics.h"
#include "extender/service/pod_binder.h"
#include "extender/service/pod_lookup.h"
#include "extender/service/unseen_pods.h"
#include "cache/state/cluster_state.h"
#include "net/http_server.h"

namespace gangplank::extender {

class BindVerb {
 public:
  // `pods` is what bindings are checked against (bind_rules.h). With `unseen` (filled by the filter verb),
  // a pod the cache has not seen yet is assumed bound too.
  BindVerb(cache::ClusterState& state, PodBinder& binder, ExtenderMetrics& metrics, const PodLookup& pods,
           BindRules rules, UnseenPods* unseen = nullptr)
      : state_(state), binder_(binder), metrics_(metrics), pods_(pods), rules_(std::move(rules)), unseen_(unseen) {}

  // Answers through `responder`, later and from the binder's thread once the API server has answered;
  // a body that is not ExtenderBindingArgs is answered 400 at once.
  void Handle(const net::HttpRequest& request, net::HttpResponder responder);

 private:
  cache::ClusterState& state_;
  PodBinder& binder_;
  ExtenderMetrics& metrics_;
  const PodLookup& pods_;
  const BindRules rules_;
  UnseenPods* unseen_;
};

}  // namespace gangplank::extender

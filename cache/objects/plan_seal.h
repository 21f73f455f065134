// An admission plan's seal (issue 23): HMAC-SHA256, under a key only gangplank's operator and extender
// hold (a Secret the chart generates), over the pod's UID, its planned node and its admission id. The
// operator writes it beside the plan; every reader drops a plan whose seal does not verify, so a plan a
// tenant wrote on its own pod (possible wherever the chart's ValidatingAdmissionPolicy is off) is no
// plan: it is not released as a stopped leader's admission, not honoured by the extender's filter, not
// counted as a reservation, and its admission id (the gang's start time) is not believed.
#pragma once

#include <string>
#include <string_view>

#include "cache/objects/kube_objects.h"

namespace gangplank::cache {

class PlanSeal {
 public:
  // At least 32 bytes of key (the chart's is 64 random characters); shorter throws invalid_argument.
  explicit PlanSeal(std::string key);

  // The seal of one pod's plan, base64url without padding (43 characters).
  std::string Sign(std::string_view uid, std::string_view node, std::string_view admission_id) const;
  // The pod's plan carries a seal of its own UID, planned node and admission id, and, on a pod not yet
  // bound, was made less than kUnboundPlanSeconds ago (the admission id starts with its time): a plan
  // taken back (a rollback) and written back later by the pod's owner, where no policy stops it, is no
  // plan. A bound pod keeps its plan for good (fault recovery reads where it was admitted).
  bool Verifies(const PodInfo& pod) const;

  // How long a plan holds on a pod that is not bound: far past any binding delay and the pools' start
  // timeout (600 s by default), after which an unstarted gang is released anyway.
  static constexpr double kUnboundPlanSeconds = 3600;

 private:
  std::string key_;
};

// Removes a plan whose seal does not verify (planned node, admission id and seal) from `pod`; without a
// seal configured (`seal` null) plans are trusted as written. True when a plan was removed.
bool DropUnsealedPlan(PodInfo& pod, const PlanSeal* seal);

}  // namespace gangplank::cache

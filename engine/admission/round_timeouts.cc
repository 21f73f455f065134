// Time limits: a waiting gang past its timeout (WaitingGang::timeout) keeps no reservation, and an
// admitted gang whose members did not all start in time (AdmissionConfig::start_timeout_seconds) is
// released whole, so its owner requeues it instead of it holding GPUs it cannot use.
#include <algorithm>
#include <limits>

#include "engine/admission/decision_text.h"
#include "engine/admission/round.h"

namespace gangplank::engine {

bool Round::TimedOut(int w) const { return in_.now - in_.waiting[w].arrival > in_.waiting[w].timeout; }

// The timeout, not the exact wait, so the message stays the same from round to round.
std::string Round::TimedOutMessage(int w, const Blocked& otherwise) const {
  const std::string waited = "waited " + GoDuration(in_.waiting[w].timeout) + " without fitting; ";
  return waited + (gangs_[w].lost_reservation ? "reservation released" : otherwise.message);
}

void Round::ReleaseStartTimeouts() {
  const double limit = config_.start_timeout_seconds;
  if (!(limit < std::numeric_limits<double>::infinity())) return;
  for (size_t r = 0; r < in_.running.size(); ++r) {
    const RunningGang& gang = in_.running[r];
    if (gang.started || gang.terminating || !(in_.now - gang.admitted_at > limit)) continue;
    const int members = static_cast<int>(gang.allocations.size());
    const int missing = std::max(0, members - gang.members_started);
    std::string reason = "admitted " + GoDuration(in_.now - gang.admitted_at) + " ago but " + std::to_string(missing) +
                         " of " + std::to_string(members) +
                         " members never started; releasing the whole gang to requeue it";
    out_.reclaims.push_back(Reclaimed{static_cast<int>(r), -1, 0, std::move(reason), EvictionKind::kStartTimeout});
    MarkEvicted(static_cast<int>(r));  // Never a victim as well; its GPUs stay held until its pods are gone.
  }
}

}  // namespace gangplank::engine

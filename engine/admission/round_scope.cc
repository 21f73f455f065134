#include "engine/admission/round_scope.h"

namespace gangplank::engine {

bool NeedsFullRound(const ScopeSignals& s) {
  if (s.capacity_freed || s.queues_changed || s.running_changed || s.demand_fell) return true;
  if (!(s.now < s.next_wakeup)) return true;                                  // A time-based rule is due.
  return !(s.now - s.last_full_round < s.max_staleness_seconds);             // Also true on the first round.
}

}  // namespace gangplank::engine

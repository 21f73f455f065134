// Topology-aware, all-or-nothing gang planning.
//
// Rules, in order:
//  1. The gang goes into the narrowest topology domain that can hold it (the search starts at the
//     narrowest level and widens; the whole pool is the widest "domain").
//  2. A required level bounds the search: the gang lands inside one domain of that level or a narrower
//     one, or is not placed. A preferred level only records whether the plan met it (narrowest-first
//     already tries it before anything wider); the plan says when it had to go wider.
//  3. Among the domains of one level that can hold the gang, the planner keeps whole domains free for
//     later large gangs: first the domain whose use turns the fewest fully free domains (itself and its
//     ancestors) into broken ones, then the best fit (fewest free GPUs left), then the fuller parent.
//  4. A gang wider than every child of its domain is spread over as few children as possible, each
//     chosen by the same rule; inside the narrowest domain the ScoringPolicy picks the nodes.
// Per-domain free-GPU aggregates (DomainIndex) rule out domains cheaply, so a plan costs one pass over
// the nodes plus placement inside the few domains actually tried.
#pragma once

#include "engine/cluster.h"
#include "engine/gang/gang_plan.h"
#include "engine/gang/gang_request.h"
#include "engine/random.h"
#include "engine/scoring_policy.h"

namespace gangplank::engine {

// Plans `gang` on the cluster's current state. The cluster is used as a scratch model while planning
// (members are assigned tentatively so the policy sees earlier members) and is always restored, also
// when an exception escapes: on return its free capacity is exactly what it was. The policy is told of
// tentative assignments and their undoing (OnAssigned/OnReleased) in pairs; a caller that applies the
// plan tells it again, as after PlacePod.
GangPlan PlanGang(Cluster& cluster, const GangRequest& gang, ScoringPolicy& policy, Rng& rng);

}  // namespace gangplank::engine

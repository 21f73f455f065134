// The text a person reads about a fault, in the gang's events and conditions and the operator's logs:
// "node gpu-17 NotReady for 45 s", "GPU allocatable on gpu-03 fell to 6, gangs hold 8",
// "member ml/w-3 Failed on node gpu-2", "3 of 4 members running for 301 s".
#pragma once

#include <string>

#include "engine/recovery/gang_health.h"
#include "engine/recovery/node_fault.h"

namespace gangplank::engine {

std::string NodeFaultMessage(const NodeFault& fault, double now);
std::string MemberFaultMessage(const MemberFault& fault);
std::string DeviceFaultMessage(const DeviceFault& fault);
std::string BelowMinimumMessage(int members, int min_members, double seconds);

}  // namespace gangplank::engine

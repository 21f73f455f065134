// Kubernetes' CEL libraries for quantities and semantic versions, as its DRA and admission environments
// enable them: quantity(s), isQuantity(s), q.compareTo/isGreaterThan/isLessThan(q2), q.add/sub(q2 or int),
// q.asInteger(), q.isInteger(), q.asApproximateFloat(), q.sign() (and sign(q)); semver(s[, normalize]),
// isSemver(s[, normalize]), v.compareTo/isGreaterThan/isLessThan(v2), v.major(), v.minor(), v.patch().
#pragma once

#include <string>
#include <vector>

#include "cel/value.h"

namespace gangplank::cel {

bool IsKubernetesFunction(const std::string& name, bool as_method);
// Global functions (quantity('1Gi')); throws EvalError("no such overload") for mismatched arguments.
Value KubernetesFunction(const std::string& name, const std::vector<Value>& args);
// Methods of a quantity or a semver receiver.
Value QuantityMethod(const std::string& name, const Quantity& q, const std::vector<Value>& args);
Value SemverMethod(const std::string& name, const Semver& v, const std::vector<Value>& args);

}  // namespace gangplank::cel

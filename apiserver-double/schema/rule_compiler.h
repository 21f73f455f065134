// Compiles every x-kubernetes-validations rule of a CRD version's schema when the CRD is created or
// updated, as kube-apiserver does: a rule (or messageExpression, or fieldPath) that does not compile
// makes the CRD invalid, with the rule printed as the Go struct upstream prints.
#pragma once

#include <string>

#include "apiserver-double/schema/field_error.h"
#include "apiserver-double/schema/schema.h"

namespace gangplank::apiserver_double::schema {

// `path` names the schema in the CRD, e.g. "spec.versions[0].schema.openAPIV3Schema". Fills each
// rule's programs; appends one error per rule that fails.
void CompileRules(Schema& root, const std::string& path, FieldErrors& errors);

}  // namespace gangplank::apiserver_double::schema

// Compilation of a CRD validation rule: parse, then the checks kube-apiserver's CEL environment makes
// before it accepts a CRD (undeclared identifiers and functions, fields the schema does not declare).
// Errors are rendered as cel-go renders them (`ERROR: <input>:1:5: undefined field 'x'` + source + caret).
#pragma once

#include <string>

#include "apiserver-double/cel/ast.h"

namespace gangplank::apiserver_double::schema {
struct Schema;
}

namespace gangplank::apiserver_double::cel {

struct Compiled {
  ExprPtr program;          // null when compilation failed
  bool uses_old_self = false;
  std::string errors;       // the rendered diagnostics, "" on success
};

// `self_schema` is the schema of the node the rule sits on; `resource_root` when that is the CRD root
// (apiVersion, kind and metadata are then selectable too).
Compiled compile(const std::string& source, const schema::Schema* self_schema, bool resource_root);

}  // namespace gangplank::apiserver_double::cel

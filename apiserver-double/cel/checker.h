// Compilation of a CRD validation rule: parse, then the checks kube-apiserver's CEL environment makes
// before it accepts a CRD: undeclared identifiers and functions, fields the schema does not declare,
// operator and function overloads against the schema's types (int, double, string, list, map, object;
// dyn where the schema says nothing), and the result type (bool for rules, string for messages).
// Errors are rendered as cel-go renders them (`ERROR: <input>:1:5: undefined field 'x'` + source + caret).
#pragma once

#include <string>

#include "cel/ast.h"

namespace gangplank::apiserver_double::schema {
struct Schema;
}

namespace gangplank::apiserver_double::cel {

struct Compiled {
  gangplank::cel::ExprPtr program;  // null when compilation failed
  bool uses_old_self = false;
  std::string errors;  // the detail upstream reports, "" on success
};

enum class ResultType { kBool, kString };

// `self_schema` is the schema of the node the rule sits on; `resource_root` when that is the CRD root
// (apiVersion, kind and metadata are then selectable too).
Compiled Compile(const std::string& source, const schema::Schema* self_schema, bool resource_root,
                 ResultType result = ResultType::kBool);

}  // namespace gangplank::apiserver_double::cel

#include "apiserver-double/cel/self_activation.h"

#include "cel/evaluator.h"

namespace gangplank::apiserver_double::cel {

Value Evaluate(const Expr& rule, const Activation& activation) {
  gangplank::cel::Activation variables("self", activation.self);
  if (activation.old_self) variables.Bind("oldSelf", *activation.old_self);
  return gangplank::cel::Evaluate(rule, variables);
}

}  // namespace gangplank::apiserver_double::cel

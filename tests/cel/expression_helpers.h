// Evaluating an expression that names no variables, for the tests of the evaluator and its libraries.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "cel/evaluator.h"
#include "cel/parser.h"

namespace gangplank::cel::test_support {

inline Value eval(const std::string& source) { return Evaluate(*Parse(source), Activation{}); }

inline bool holds(const std::string& source) {
  const Value v = eval(source);
  EXPECT_TRUE(v.is<bool>()) << source;
  return v.is<bool>() && v.as<bool>();
}

// The EvalError's text, or "<no error>".
inline std::string error_of(const std::string& source) {
  try {
    eval(source);
  } catch (const EvalError& e) {
    return e.what();
  }
  return "<no error>";
}

}  // namespace gangplank::cel::test_support

// CEL's string methods as Kubernetes enables them: the core ones (startsWith, endsWith, contains,
// matches) and cel-go's strings extension, version 2 (charAt, indexOf, lastIndexOf, lowerAscii, upperAscii,
// replace, split, substring, trim). Positions count code points, as cel-go does.
#pragma once

#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "cel/value.h"

namespace gangplank::cel {

// `s.name(args...)`; throws EvalError("no such overload") for an unknown name or mismatched arguments.
Value StringMethod(const std::string& name, const std::string& s, const std::vector<Value>& args);
bool IsStringMethod(const std::string& name);

// RE2-style `matches`: true when `pattern` matches anywhere in `text`. std::regex (ECMAScript) stands in
// for RE2, with a leading (?i) taken as case-insensitive; throws EvalError("invalid regular expression: p").
bool Matches(const std::string& text, const std::string& pattern);
// The compiled form of `pattern` (nullopt with `error` set when it does not compile), for patterns
// known before evaluation.
std::optional<std::regex> CompilePattern(const std::string& pattern, std::string* error = nullptr);
bool Matches(const std::string& text, const std::regex& compiled);

}  // namespace gangplank::cel

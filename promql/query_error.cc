// Stable names of the ways a query fails.
#include "promql/query_error.h"

namespace gangplank::promql {

using Kind = QueryError::Kind;

std::string_view KindName(QueryError::Kind kind) {
  switch (kind) {
    case Kind::kUnreachable: return "unreachable";
    case Kind::kTimeout: return "timeout";
    case Kind::kCredentials: return "credentials";
    case Kind::kHttpStatus: return "http_status";
    case Kind::kMalformed: return "malformed";
    case Kind::kWrongResultType: return "wrong_result_type";
    case Kind::kNonNumeric: return "non_numeric";
    case Kind::kTooLarge: return "too_large";
  }
  return "unknown";
}

}  // namespace gangplank::promql

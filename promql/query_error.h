// How a Prometheus query fails, as a value: the client never throws for a failed query, it returns a
// Result holding a QueryError whose kind says what to do about it (retry later, fix the query, ...).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace gangplank::promql {

struct QueryError {
  enum class Kind {
    kUnreachable,      // connection refused, DNS, TLS handshake: Prometheus is not there (retry later)
    kTimeout,          // no byte for the client's timeout
    kCredentials,      // the bearer token file cannot be read
    kHttpStatus,       // Prometheus answered non-2xx (or "status":"error"); error_type/message from its body
    kMalformed,        // the body is not the JSON the API documents (HTML from a proxy, truncated, ...)
    kWrongResultType,  // valid answer, other resultType than the call expects (scalar for Query, ...)
    kNonNumeric,       // a sample value that is not a Prometheus float
    kTooLarge,         // the body exceeds PrometheusClientOptions::max_body_bytes
  };
  Kind kind = Kind::kMalformed;
  std::string message;     // human-readable, names what was wrong
  int http_status = 0;     // kHttpStatus: the status; 0 otherwise
  std::string error_type;  // Prometheus' "errorType" (bad_data, execution, timeout, ...) when it sent one
};

// The stable name of a kind ("unreachable", "http_status", ...), for logs and metrics labels.
std::string_view KindName(QueryError::Kind kind);

// Either the value or the error. Reading the wrong side is a programming error (std::bad_variant_access).
template <typename T>
class Result {
 public:
  Result(T value) : state_(std::move(value)) {}           // NOLINT(google-explicit-constructor)
  Result(QueryError error) : state_(std::move(error)) {}  // NOLINT(google-explicit-constructor)

  bool ok() const { return std::holds_alternative<T>(state_); }
  const T& value() const { return std::get<T>(state_); }
  T& value() { return std::get<T>(state_); }
  const QueryError& error() const { return std::get<QueryError>(state_); }

 private:
  std::variant<T, QueryError> state_;
};

}  // namespace gangplank::promql

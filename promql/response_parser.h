// The JSON bodies of Prometheus' HTTP API (/api/v1/query, /api/v1/query_range) turned into samples or a
// QueryError. Pure: no I/O, so every malformed shape is tested without a server.
#pragma once

#include <string_view>

#include "promql/query_error.h"
#include "promql/samples.h"

namespace gangplank::promql {

// A 2xx body whose data.resultType must be "vector".
Result<InstantVector> ParseVectorResponse(std::string_view body);
// A 2xx body whose data.resultType must be "matrix".
Result<Matrix> ParseMatrixResponse(std::string_view body);
// A non-2xx answer: kHttpStatus, with Prometheus' errorType and error when the body is its error JSON,
// else the start of the body (an HTML page from a proxy says more than the status alone).
QueryError ErrorFromStatus(int status, std::string_view body);

}  // namespace gangplank::promql

// Prometheus API bodies to samples. Parsing steps throw ParseFailure so each stays short; the two entry
// points turn it (and nlohmann's own type errors) into a QueryError value.
#include "promql/response_parser.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>

namespace gangplank::promql {
namespace {

using Json = nlohmann::json;
using Kind = QueryError::Kind;

struct ParseFailure {
  QueryError error;
};

[[noreturn]] void Fail(Kind kind, std::string message) {
  throw ParseFailure{QueryError{kind, std::move(message), 0, ""}};
}

// The value strings Prometheus writes: Go's shortest float text, or NaN, +Inf, -Inf. The special ones are
// real Prometheus floats (a 0/0 ratio, an empty rate) and are kept; anything else is kNonNumeric.
double ParseValue(const Json& value) {
  if (!value.is_string()) Fail(Kind::kMalformed, "a sample value is not a string: " + value.dump());
  const auto& text = value.get_ref<const std::string&>();
  if (text == "NaN") return std::numeric_limits<double>::quiet_NaN();
  if (text == "+Inf" || text == "Inf") return std::numeric_limits<double>::infinity();
  if (text == "-Inf") return -std::numeric_limits<double>::infinity();
  double out = 0;
  const auto [end, status] = std::from_chars(text.data(), text.data() + text.size(), out);
  if (status != std::errc{} || end != text.data() + text.size() || !std::isfinite(out)) {
    Fail(Kind::kNonNumeric, "sample value '" + text + "' is not a number");
  }
  return out;
}

// [<unix seconds as a float>, "<value>"]
Point ParsePoint(const Json& pair) {
  if (!pair.is_array() || pair.size() != 2 || !pair[0].is_number()) {
    Fail(Kind::kMalformed, "a sample is not [timestamp, \"value\"]: " + pair.dump().substr(0, 200));
  }
  const auto millis = std::llround(pair[0].get<double>() * 1000);
  return Point{Clock::time_point(std::chrono::milliseconds(millis)), ParseValue(pair[1])};
}

Labels ParseLabels(const Json& metric) {
  if (!metric.is_object()) Fail(Kind::kMalformed, "a series' \"metric\" is not an object");
  Labels labels;
  for (const auto& [name, value] : metric.items()) {
    if (!value.is_string()) Fail(Kind::kMalformed, "label " + name + " is not a string");
    labels.emplace(name, value.get<std::string>());
  }
  return labels;
}

// The envelope's data.result, after checking status and resultType.
const Json& ResultOf(const Json& body, std::string_view want_type) {
  if (!body.is_object()) Fail(Kind::kMalformed, "the body is not a JSON object");
  if (body.value("status", "") != "success") {
    throw ParseFailure{QueryError{Kind::kHttpStatus,
                                  "Prometheus: " + body.value("error", std::string("status is not success")), 0,
                                  body.value("errorType", "")}};
  }
  const Json& data = body.at("data");
  const std::string type = data.at("resultType").get<std::string>();
  if (type != want_type) Fail(Kind::kWrongResultType, "resultType is " + type + ", expected " + std::string(want_type));
  const Json& result = data.at("result");
  if (!result.is_array()) Fail(Kind::kMalformed, "data.result is not an array");
  return result;
}

InstantVector VectorOf(const Json& result) {
  InstantVector out;
  for (const auto& series : result) {
    const Point point = ParsePoint(series.at("value"));
    out.push_back(Sample{ParseLabels(series.at("metric")), point.value, point.timestamp});
  }
  return out;
}

Matrix MatrixOf(const Json& result) {
  Matrix out;
  for (const auto& series : result) {
    Series parsed{ParseLabels(series.at("metric")), {}};
    for (const auto& pair : series.at("values")) parsed.points.push_back(ParsePoint(pair));
    out.push_back(std::move(parsed));
  }
  return out;
}

// Parses `body`, then runs `convert` on its data.result, turning every failure into a QueryError.
template <typename T, typename Convert>
Result<T> Parse(std::string_view body, std::string_view want_type, Convert convert) {
  const Json json = Json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) {
    return QueryError{Kind::kMalformed, "the body is not JSON: " + std::string(body.substr(0, 200)), 0, ""};
  }
  try {
    return convert(ResultOf(json, want_type));
  } catch (const ParseFailure& failure) {
    return failure.error;
  } catch (const Json::exception& e) {
    return QueryError{Kind::kMalformed, std::string("unexpected JSON shape: ") + e.what(), 0, ""};
  }
}

}  // namespace

Result<InstantVector> ParseVectorResponse(std::string_view body) {
  return Parse<InstantVector>(body, "vector", VectorOf);
}

Result<Matrix> ParseMatrixResponse(std::string_view body) { return Parse<Matrix>(body, "matrix", MatrixOf); }

QueryError ErrorFromStatus(int status, std::string_view body) {
  QueryError error{Kind::kHttpStatus, "HTTP " + std::to_string(status), status, ""};
  const Json json = Json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (json.is_object() && json.contains("error") && json["error"].is_string()) {
    error.error_type = json.value("errorType", "");
    error.message += ": " + error.error_type + ": " + json["error"].get<std::string>();
  } else if (!body.empty()) {
    error.message += ": " + std::string(body.substr(0, 200));
  }
  return error;
}

}  // namespace gangplank::promql

#include "kube/api_error.h"

#include <nlohmann/json.hpp>

#include <array>
#include <charconv>
#include <utility>

namespace gangplank::kube {
namespace {

constexpr std::array<std::pair<StatusReason, std::string_view>, 18> kReasonNames{{
    {StatusReason::kBadRequest, "BadRequest"},
    {StatusReason::kUnauthorized, "Unauthorized"},
    {StatusReason::kForbidden, "Forbidden"},
    {StatusReason::kNotFound, "NotFound"},
    {StatusReason::kAlreadyExists, "AlreadyExists"},
    {StatusReason::kConflict, "Conflict"},
    {StatusReason::kGone, "Gone"},
    {StatusReason::kExpired, "Expired"},
    {StatusReason::kInvalid, "Invalid"},
    {StatusReason::kTooManyRequests, "TooManyRequests"},
    {StatusReason::kServerTimeout, "ServerTimeout"},
    {StatusReason::kTimeout, "Timeout"},
    {StatusReason::kInternalError, "InternalError"},
    {StatusReason::kServiceUnavailable, "ServiceUnavailable"},
    {StatusReason::kMethodNotAllowed, "MethodNotAllowed"},
    {StatusReason::kUnsupportedMediaType, "UnsupportedMediaType"},
    {StatusReason::kNotAcceptable, "NotAcceptable"},
    {StatusReason::kRequestEntityTooLarge, "RequestEntityTooLarge"},
}};

StatusReason ReasonFromCode(int code) {
  switch (code) {
    case 400: return StatusReason::kBadRequest;
    case 401: return StatusReason::kUnauthorized;
    case 403: return StatusReason::kForbidden;
    case 404: return StatusReason::kNotFound;
    case 405: return StatusReason::kMethodNotAllowed;
    case 406: return StatusReason::kNotAcceptable;
    case 409: return StatusReason::kConflict;
    case 410: return StatusReason::kGone;
    case 413: return StatusReason::kRequestEntityTooLarge;
    case 415: return StatusReason::kUnsupportedMediaType;
    case 422: return StatusReason::kInvalid;
    case 429: return StatusReason::kTooManyRequests;
    case 500: return StatusReason::kInternalError;
    case 503: return StatusReason::kServiceUnavailable;
    case 504: return StatusReason::kTimeout;
    default: return StatusReason::kUnknown;
  }
}

std::optional<std::chrono::seconds> ParseRetryAfter(const std::optional<std::string>& header) {
  if (!header) return std::nullopt;
  long long seconds = 0;
  const char* begin = header->data();
  const char* end = begin + header->size();
  while (begin < end && *begin == ' ') ++begin;
  auto [ptr, ec] = std::from_chars(begin, end, seconds);
  if (ec != std::errc() || seconds < 0) return std::nullopt;  // HTTP-date form: not used by the apiserver
  return std::chrono::seconds(seconds);
}

template <class E>
std::exception_ptr Make(int code, StatusReason reason, std::string reason_text, std::string message,
                        std::vector<StatusCause> causes, std::optional<std::chrono::seconds> retry_after) {
  return std::make_exception_ptr(
      E(code, reason, std::move(reason_text), std::move(message), std::move(causes), retry_after));
}

std::exception_ptr Build(int code, StatusReason reason, std::string reason_text, std::string message,
                         std::vector<StatusCause> causes, std::optional<std::chrono::seconds> retry_after,
                         bool eviction) {
  if (reason == StatusReason::kUnknown) reason = ReasonFromCode(code);
  if (reason_text.empty()) reason_text = std::string(to_string(reason));
  auto args = [&]<class E>() { return Make<E>(code, reason, reason_text, message, causes, retry_after); };
  bool budget = false;
  for (const auto& c : causes) budget = budget || c.type == "DisruptionBudget";
  switch (reason) {
    case StatusReason::kBadRequest: return args.operator()<BadRequestError>();
    case StatusReason::kUnauthorized: return args.operator()<UnauthorizedError>();
    case StatusReason::kForbidden: return args.operator()<ForbiddenError>();
    case StatusReason::kNotFound: return args.operator()<NotFoundError>();
    case StatusReason::kAlreadyExists: return args.operator()<AlreadyExistsError>();
    case StatusReason::kConflict: return args.operator()<ConflictError>();
    case StatusReason::kGone:
    case StatusReason::kExpired: return args.operator()<ExpiredError>();
    case StatusReason::kInvalid: return args.operator()<InvalidError>();
    case StatusReason::kTooManyRequests:
      // An eviction 429 is a PDB refusal unless the server marks it as throttling with Retry-After and
      // no DisruptionBudget cause.
      if (eviction && (budget || !retry_after)) return args.operator()<DisruptionBudgetError>();
      return args.operator()<TooManyRequestsError>();
    case StatusReason::kServerTimeout:
    case StatusReason::kTimeout: return args.operator()<TimeoutError>();
    default:
      if (code == 410) return args.operator()<ExpiredError>();
      if (code == 429) return Build(code, StatusReason::kTooManyRequests, reason_text, message, causes, retry_after, eviction);
      if (code >= 500) return args.operator()<ServerError>();
      return args.operator()<ApiError>();
  }
}

}  // namespace

ApiError::ApiError(int code, StatusReason reason, std::string reason_text, std::string message,
                   std::vector<StatusCause> causes, std::optional<std::chrono::seconds> retry_after)
    : std::runtime_error("kubernetes API error " + std::to_string(code) + " " + reason_text + ": " + message),
      code_(code),
      reason_(reason),
      reason_text_(std::move(reason_text)),
      message_(std::move(message)),
      causes_(std::move(causes)),
      retry_after_(retry_after) {}

bool ApiError::HasCause(std::string_view type) const {
  for (const auto& c : causes_) {
    if (c.type == type) return true;
  }
  return false;
}

StatusReason ParseStatusReason(std::string_view text) {
  for (const auto& [reason, name] : kReasonNames) {
    if (name == text) return reason;
  }
  return StatusReason::kUnknown;
}

std::string_view to_string(StatusReason reason) {
  for (const auto& [r, name] : kReasonNames) {
    if (r == reason) return name;
  }
  return "Unknown";
}

std::exception_ptr MakeApiErrorFromStatus(std::string_view status_json, int http_code_fallback,
                                              std::optional<std::chrono::seconds> retry_after_header, bool eviction) {
  int code = http_code_fallback;
  std::string reason_text;
  std::string message;
  std::vector<StatusCause> causes;
  std::optional<std::chrono::seconds> retry_after = retry_after_header;
  auto status = nlohmann::json::parse(status_json, nullptr, /*allow_exceptions=*/false);
  if (status.is_object()) {
    if (auto it = status.find("code"); it != status.end() && it->is_number_integer() && it->get<int>() > 0) {
      code = it->get<int>();
    }
    if (auto it = status.find("reason"); it != status.end() && it->is_string()) reason_text = it->get<std::string>();
    if (auto it = status.find("message"); it != status.end() && it->is_string()) message = it->get<std::string>();
    if (auto d = status.find("details"); d != status.end() && d->is_object()) {
      if (auto ra = d->find("retryAfterSeconds"); ra != d->end() && ra->is_number_integer() && !retry_after) {
        retry_after = std::chrono::seconds(ra->get<long long>());
      }
      if (auto cs = d->find("causes"); cs != d->end() && cs->is_array()) {
        for (const auto& c : *cs) {
          if (!c.is_object()) continue;
          causes.push_back({c.value("reason", std::string()), c.value("message", std::string()),
                            c.value("field", std::string())});
        }
      }
    }
  } else {
    message = std::string(status_json.substr(0, 512));
  }
  if (message.empty()) message = "HTTP " + std::to_string(code);
  StatusReason reason = ParseStatusReason(reason_text);
  return Build(code, reason, reason_text, message, std::move(causes), retry_after, eviction);
}

std::exception_ptr MakeApiError(const net::HttpClientResponse& response, bool eviction) {
  return MakeApiErrorFromStatus(response.body, response.status, ParseRetryAfter(response.header("Retry-After")),
                                    eviction);
}

void ThrowApiError(const net::HttpClientResponse& response, bool eviction) {
  std::rethrow_exception(MakeApiError(response, eviction));
}

bool IsRelistError(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const ExpiredError&) {
    return true;
  } catch (const ApiError& e) {
    return e.HasCause("ResourceVersionTooLarge") ||
           e.message().find("Too large resource version") != std::string::npos;
  } catch (...) {
    return false;
  }
}

}  // namespace gangplank::kube

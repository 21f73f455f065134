// Kubernetes API errors. The apiserver answers failures with a JSON Status object; callers branch on
// reason + HTTP code (never on message text), so each common reason is its own exception type.
#pragma once

#include <chrono>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "net/http_client.h"

namespace gangplank::kube {

enum class StatusReason {
  kUnknown,
  kBadRequest,
  kUnauthorized,
  kForbidden,
  kNotFound,
  kAlreadyExists,
  kConflict,
  kGone,
  kExpired,
  kInvalid,
  kTooManyRequests,
  kServerTimeout,
  kTimeout,
  kInternalError,
  kServiceUnavailable,
  kMethodNotAllowed,
  kUnsupportedMediaType,
  kNotAcceptable,
  kRequestEntityTooLarge,
};

struct StatusCause {
  std::string type;  // e.g. "DisruptionBudget", "FieldValueInvalid", "ResourceVersionTooLarge"
  std::string message;
  std::string field;
};

// Base of every API error: what the server said (HTTP code, Status reason, message, causes).
class ApiError : public std::runtime_error {
 public:
  ApiError(int code, StatusReason reason, std::string reason_text, std::string message, std::vector<StatusCause> causes,
           std::optional<std::chrono::seconds> retry_after);

  int code() const { return code_; }
  StatusReason reason() const { return reason_; }
  const std::string& reason_text() const { return reason_text_; }
  const std::string& message() const { return message_; }
  const std::vector<StatusCause>& causes() const { return causes_; }
  // From the Retry-After header, else details.retryAfterSeconds.
  std::optional<std::chrono::seconds> retry_after() const { return retry_after_; }
  bool HasCause(std::string_view type) const;

 private:
  int code_;
  StatusReason reason_;
  std::string reason_text_;
  std::string message_;
  std::vector<StatusCause> causes_;
  std::optional<std::chrono::seconds> retry_after_;
};

#define GANGPLANK_KUBE_ERROR(Name) \
  class Name : public ApiError {   \
   public:                         \
    using ApiError::ApiError;      \
  }
GANGPLANK_KUBE_ERROR(BadRequestError);
GANGPLANK_KUBE_ERROR(UnauthorizedError);
GANGPLANK_KUBE_ERROR(ForbiddenError);
GANGPLANK_KUBE_ERROR(NotFoundError);
GANGPLANK_KUBE_ERROR(AlreadyExistsError);
GANGPLANK_KUBE_ERROR(ConflictError);
// 410: reason Expired (current servers) or Gone (<= 1.17). Both mean "relist".
GANGPLANK_KUBE_ERROR(ExpiredError);
GANGPLANK_KUBE_ERROR(InvalidError);
// 429 from API Priority and Fairness (or any throttling): retry after Retry-After.
GANGPLANK_KUBE_ERROR(TooManyRequestsError);
// 429 on pods/eviction because a PodDisruptionBudget forbids it: not throttling, do not hammer.
GANGPLANK_KUBE_ERROR(DisruptionBudgetError);
GANGPLANK_KUBE_ERROR(TimeoutError);
GANGPLANK_KUBE_ERROR(ServerError);  // any other 5xx
#undef GANGPLANK_KUBE_ERROR

StatusReason ParseStatusReason(std::string_view text);
std::string_view to_string(StatusReason reason);

// Builds the typed error for a non-2xx response. The body is normally a Status; anything else (HTML
// from a proxy, empty) still gives an error classified by HTTP code. Never throws while decoding.
// eviction=true maps a 429 without Retry-After (or with cause DisruptionBudget) to DisruptionBudgetError.
std::exception_ptr MakeApiError(const net::HttpClientResponse& response, bool eviction = false);
[[noreturn]] void ThrowApiError(const net::HttpClientResponse& response, bool eviction = false);

// Decodes a Status object (from an error body or a watch ERROR event) into the typed error.
std::exception_ptr MakeApiErrorFromStatus(std::string_view status_json, int http_code_fallback,
                                              std::optional<std::chrono::seconds> retry_after_header,
                                              bool eviction = false);

// "is 410 Expired/Gone, or a too-large resourceVersion" — the cases that force a relist.
bool IsRelistError(const std::exception_ptr& error);

}  // namespace gangplank::kube

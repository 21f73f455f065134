#include "kube/api_error.h"

#include <gtest/gtest.h>

namespace gangplank::kube {
namespace {

net::HttpClientResponse response(int status, std::string body, net::HeaderList headers = {}) {
  net::HttpClientResponse r;
  r.status = status;
  r.body = std::move(body);
  r.headers = std::move(headers);
  return r;
}

std::string status_json(int code, const std::string& reason, const std::string& extra = "") {
  return R"({"kind":"Status","apiVersion":"v1","status":"Failure","message":"msg )" + reason + R"(","reason":")" +
         reason + R"(","code":)" + std::to_string(code) + extra + "}";
}

template <class E>
void expect_type(const std::exception_ptr& error, int code, StatusReason reason) {
  try {
    std::rethrow_exception(error);
  } catch (const E& e) {
    EXPECT_EQ(e.code(), code);
    EXPECT_EQ(e.reason(), reason);
    return;
  } catch (const std::exception& e) {
    FAIL() << "wrong error type: " << e.what();
  }
}

TEST(ApiErrorTest, EachStatusReasonBecomesItsTypedError) {
  expect_type<NotFoundError>(MakeApiError(response(404, status_json(404, "NotFound"))), 404, StatusReason::kNotFound);
  expect_type<ConflictError>(MakeApiError(response(409, status_json(409, "Conflict"))), 409, StatusReason::kConflict);
  expect_type<AlreadyExistsError>(MakeApiError(response(409, status_json(409, "AlreadyExists"))), 409,
                                  StatusReason::kAlreadyExists);
  expect_type<ExpiredError>(MakeApiError(response(410, status_json(410, "Expired"))), 410, StatusReason::kExpired);
  expect_type<ExpiredError>(MakeApiError(response(410, status_json(410, "Gone"))), 410, StatusReason::kGone);
  expect_type<InvalidError>(MakeApiError(response(422, status_json(422, "Invalid"))), 422, StatusReason::kInvalid);
  expect_type<ForbiddenError>(MakeApiError(response(403, status_json(403, "Forbidden"))), 403, StatusReason::kForbidden);
  expect_type<UnauthorizedError>(MakeApiError(response(401, status_json(401, "Unauthorized"))), 401,
                                 StatusReason::kUnauthorized);
  expect_type<TooManyRequestsError>(MakeApiError(response(429, status_json(429, "TooManyRequests"))), 429,
                                    StatusReason::kTooManyRequests);
  expect_type<ServerError>(MakeApiError(response(500, status_json(500, "InternalError"))), 500,
                           StatusReason::kInternalError);
  expect_type<TimeoutError>(MakeApiError(response(504, status_json(504, "Timeout"))), 504, StatusReason::kTimeout);
}

TEST(ApiErrorTest, ReasonWinsOverMessageAndNonJsonBodiesFallBackToTheHttpCode) {
  // A message that mentions "not found" must not matter; reason Conflict decides.
  expect_type<ConflictError>(MakeApiError(response(409, R"({"reason":"Conflict","message":"not found","code":409})")),
                             409, StatusReason::kConflict);
  expect_type<ServerError>(MakeApiError(response(502, "<html>bad gateway</html>")), 502, StatusReason::kUnknown);
  expect_type<NotFoundError>(MakeApiError(response(404, "")), 404, StatusReason::kNotFound);
}

TEST(ApiErrorTest, RetryAfterFromHeaderOrDetails) {
  try {
    ThrowApiError(response(429, status_json(429, "TooManyRequests"), {{"retry-after", "7"}}));
  } catch (const TooManyRequestsError& e) {
    ASSERT_TRUE(e.retry_after());
    EXPECT_EQ(e.retry_after()->count(), 7);
  }
  try {
    ThrowApiError(response(429, status_json(429, "TooManyRequests", R"(,"details":{"retryAfterSeconds":3})")));
  } catch (const TooManyRequestsError& e) {
    ASSERT_TRUE(e.retry_after());
    EXPECT_EQ(e.retry_after()->count(), 3);
  }
}

TEST(ApiErrorTest, Eviction429FromPdbIsNotThrottling) {
  std::string pdb = status_json(429, "TooManyRequests",
                                R"(,"details":{"causes":[{"reason":"DisruptionBudget","message":"needs 2 healthy"}]})");
  expect_type<DisruptionBudgetError>(MakeApiError(response(429, pdb), /*eviction=*/true), 429,
                                     StatusReason::kTooManyRequests);
  // Without the eviction flag, it is plain throttling.
  expect_type<TooManyRequestsError>(MakeApiError(response(429, pdb)), 429, StatusReason::kTooManyRequests);
  // An APF 429 on the eviction endpoint carries Retry-After and no budget cause.
  expect_type<TooManyRequestsError>(
      MakeApiError(response(429, status_json(429, "TooManyRequests"), {{"Retry-After", "1"}}), true), 429,
      StatusReason::kTooManyRequests);
}

TEST(ApiErrorTest, RelistErrorsAreExpiredGoneAndTooLargeResourceVersion) {
  EXPECT_TRUE(IsRelistError(MakeApiError(response(410, status_json(410, "Expired")))));
  EXPECT_TRUE(IsRelistError(MakeApiError(response(410, status_json(410, "Gone")))));
  EXPECT_TRUE(IsRelistError(MakeApiError(response(
      504, status_json(504, "Timeout", R"(,"details":{"causes":[{"reason":"ResourceVersionTooLarge"}]})")))));
  EXPECT_FALSE(IsRelistError(MakeApiError(response(500, status_json(500, "InternalError")))));
  EXPECT_FALSE(IsRelistError(std::make_exception_ptr(std::runtime_error("x"))));
}

}  // namespace
}  // namespace gangplank::kube

// The dry run's input limits (issue 23: a 16 MiB body went into a full DOM, 1.5 GB): the HTTP server
// refuses a body above 4 MiB on /dry-run and above 64 KiB elsewhere before reading it, and the parser
// stops at the first level nested deeper than a Pod ever is, before building it.
#include <gtest/gtest.h>

#include <string>

#include "operator/service/operator_routes.h"

namespace gangplank::op {
namespace {

TEST(DryRunLimits, BodyLimitsPerRoute) {
  const net::HttpBodyLimit limit = OperatorBodyLimit();
  EXPECT_EQ(limit("POST", "/dry-run"), kDryRunBodyBytes);
  EXPECT_EQ(limit("GET", "/metrics"), 64u * 1024);
  EXPECT_EQ(limit("POST", "/readyz"), 64u * 1024);
  // The TLS port: the webhook's AdmissionReviews besides the dry run.
  const net::HttpBodyLimit tls = OperatorBodyLimit(kDryRunBodyBytes, "/mutate-pods");
  EXPECT_EQ(tls("POST", "/mutate-pods"), kWebhookBodyBytes);
  EXPECT_EQ(tls("POST", "/dry-run"), kDryRunBodyBytes);
  EXPECT_EQ(tls("GET", "/mutate-pods"), kSmallBodyBytes);
  EXPECT_EQ(limit("POST", "/mutate-pods"), kSmallBodyBytes) << "no webhook on the plain port";
}

TEST(DryRunLimits, NestingDeeperThanAPodIsRefusedWhileParsing) {
  EXPECT_TRUE(ParseDryRunBody(R"({"pods":[{"metadata":{"name":"a"}}]})").is_object());
  const std::string deep = std::string(kDryRunMaxDepth + 1, '[') + std::string(kDryRunMaxDepth + 1, ']');
  EXPECT_TRUE(ParseDryRunBody(deep).is_discarded());
  const std::string bomb(1u << 20, '[');  // A megabyte of open brackets: refused at depth 65, not built.
  EXPECT_TRUE(ParseDryRunBody(bomb).is_discarded());
  EXPECT_TRUE(ParseDryRunBody("{not json").is_discarded());
}

}  // namespace
}  // namespace gangplank::op

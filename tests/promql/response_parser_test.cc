// Prometheus API bodies to samples or errors, without a server: every shape the client must not crash on.
#include "promql/response_parser.h"

#include <gtest/gtest.h>

#include <cmath>

namespace gangplank::promql {
namespace {

using Kind = QueryError::Kind;

std::string VectorBody(const std::string& value) {
  return R"({"status":"success","data":{"resultType":"vector",)"
         R"("result":[{"metric":{"pod":"a"},"value":[1700000000.5,")" +
         value + R"("]}]}})";
}

TEST(ResponseParser, ReadsAnInstantVector) {
  const auto result = ParseVectorResponse(VectorBody("85.5"));
  ASSERT_TRUE(result.ok()) << result.error().message;
  ASSERT_EQ(result.value().size(), 1u);
  EXPECT_EQ(result.value()[0].labels.at("pod"), "a");
  EXPECT_DOUBLE_EQ(result.value()[0].value, 85.5);
  EXPECT_EQ(result.value()[0].timestamp.time_since_epoch(), std::chrono::milliseconds(1700000000500));
}

TEST(ResponseParser, KeepsNaNAndInfinitiesAsPrometheusFloats) {
  EXPECT_TRUE(std::isnan(ParseVectorResponse(VectorBody("NaN")).value()[0].value));
  EXPECT_EQ(ParseVectorResponse(VectorBody("+Inf")).value()[0].value, INFINITY);
  EXPECT_EQ(ParseVectorResponse(VectorBody("-Inf")).value()[0].value, -INFINITY);
  EXPECT_DOUBLE_EQ(ParseVectorResponse(VectorBody("1e-3")).value()[0].value, 0.001);
}

TEST(ResponseParser, RejectsNonNumericValues) {
  for (const std::string bad : {"abc", "", "12x", "0x10"}) {
    const auto result = ParseVectorResponse(VectorBody(bad));
    ASSERT_FALSE(result.ok()) << bad;
    EXPECT_EQ(result.error().kind, Kind::kNonNumeric) << bad;
  }
}

TEST(ResponseParser, ReadsAMatrix) {
  const auto result = ParseMatrixResponse(R"({"status":"success","data":{"resultType":"matrix",)"
                                          R"("result":[{"metric":{"pod":"a"},"values":[[10,"1"],[11,"2"]]}]}})");
  ASSERT_TRUE(result.ok()) << result.error().message;
  ASSERT_EQ(result.value()[0].points.size(), 2u);
  EXPECT_DOUBLE_EQ(result.value()[0].points[1].value, 2);
  EXPECT_EQ(result.value()[0].points[1].timestamp.time_since_epoch(), std::chrono::seconds(11));
}

TEST(ResponseParser, NamesTheWrongResultType) {
  const auto scalar = ParseVectorResponse(R"({"status":"success","data":{"resultType":"scalar","result":[1,"2"]}})");
  ASSERT_FALSE(scalar.ok());
  EXPECT_EQ(scalar.error().kind, Kind::kWrongResultType);
  EXPECT_NE(scalar.error().message.find("scalar"), std::string::npos);
  EXPECT_EQ(ParseMatrixResponse(VectorBody("1")).error().kind, Kind::kWrongResultType);
}

TEST(ResponseParser, CallsEveryOtherShapeMalformed) {
  for (const std::string body :
       {"", "<html><body>502 Bad Gateway</body></html>", "[1,2]", R"({"status":"success"})",
        R"({"status":"success","data":{"resultType":"vector","result":{}}})",
        R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{"a":1},"value":[1,"1"]}]}})",
        R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1]}]}})",
        R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,2]}]}})",
        R"({"status":"succ)"}) {
    const auto result = ParseVectorResponse(body);
    ASSERT_FALSE(result.ok()) << body;
    EXPECT_EQ(result.error().kind, Kind::kMalformed) << body;
  }
}

TEST(ResponseParser, ReadsPrometheusErrorBodies) {
  const QueryError error =
      ErrorFromStatus(400, R"({"status":"error","errorType":"bad_data","error":"1:5: parse error: unexpected"})");
  EXPECT_EQ(error.kind, Kind::kHttpStatus);
  EXPECT_EQ(error.http_status, 400);
  EXPECT_EQ(error.error_type, "bad_data");
  EXPECT_NE(error.message.find("parse error"), std::string::npos);
  const QueryError html = ErrorFromStatus(502, "<html>Bad Gateway</html>");
  EXPECT_EQ(html.error_type, "");
  EXPECT_NE(html.message.find("Bad Gateway"), std::string::npos);
  EXPECT_EQ(KindName(Kind::kHttpStatus), "http_status");
}

}  // namespace
}  // namespace gangplank::promql

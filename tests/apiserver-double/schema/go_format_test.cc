// Go's fmt output that the error messages depend on.
#include <gtest/gtest.h>

#include "apiserver-double/schema/field_error.h"
#include "apiserver-double/schema/go_format.h"

namespace gangplank::apiserver_double::schema {
namespace {

TEST(GoFormat, QuoteEscapesLikeStrconvQuote) {
  EXPECT_EQ(GoQuote("plain"), "\"plain\"");
  EXPECT_EQ(GoQuote("a\"b\\c\n\t"), R"("a\"b\\c\n\t")");
  EXPECT_EQ(GoQuote(std::string("\x01") + "\x7f"), R"("\x01\x7f")");
  EXPECT_EQ(GoQuote("gr\xc3\xbc\xc3\x9f"), "\"gr\xc3\xbc\xc3\x9f\"");  // printable UTF-8 stays as is
  EXPECT_EQ(GoQuote("\xff"), R"("\xff")");                             // invalid UTF-8 is escaped
}

TEST(GoFormat, FloatsPrintAsPercentV) {
  EXPECT_EQ(GoFloat(0), "0");
  EXPECT_EQ(GoFloat(0.5), "0.5");
  EXPECT_EQ(GoFloat(-1.5), "-1.5");
  EXPECT_EQ(GoFloat(2.0), "2");
  EXPECT_EQ(GoFloat(123456), "123456");
  EXPECT_EQ(GoFloat(1e6), "1e+06");
  EXPECT_EQ(GoFloat(1234567), "1.234567e+06");
  EXPECT_EQ(GoFloat(0.0001), "0.0001");
  EXPECT_EQ(GoFloat(0.00001), "1e-05");
  EXPECT_EQ(GoFloat(1e21), "1e+21");
}

TEST(GoFormat, SyntaxOfDecodedJson) {
  EXPECT_EQ(GoSyntax(nlohmann::json{{"name", "a"}, {"port", 80}}), R"(map[string]interface {}{"name":"a", "port":80})");
  EXPECT_EQ(GoSyntax(nlohmann::json::array({1, "x"})), R"([]interface {}{1, "x"})");
  EXPECT_EQ(GoSyntax(nullptr), "interface {}(nil)");
}

TEST(GoFormat, JsonAsEncodingJsonMarshals) {
  EXPECT_EQ(GoJson(nlohmann::json{{"port", 80}, {"name", "a"}}), R"({"name":"a","port":80})");
  EXPECT_EQ(GoJson(nullptr), "null");
  EXPECT_EQ(GoJson(nlohmann::json::array({true, 0.5, -3})), "[true,0.5,-3]");
  EXPECT_EQ(GoJson("<a&b>\n\x01\"\\"), R"("\u003ca\u0026b\u003e\n\u0001\"\\")");
  EXPECT_EQ(GoJson("\xe2\x80\xa8\xff"), R"("\u2028\ufffd")");
  EXPECT_EQ(GoJson(0.00001), "0.00001");
  EXPECT_EQ(GoJson(1e-7), "1e-7");
  EXPECT_EQ(GoJson(1e21), "1e+21");
  EXPECT_EQ(GoJson(123456789.0), "123456789");
}

TEST(FieldErrorText, BodiesAsFieldErrorBody) {
  EXPECT_EQ(Invalid("spec.w", -1, "too small").text(), "spec.w: Invalid value: -1: too small");
  EXPECT_EQ(Invalid("spec.w", 0.25, "d").body(), "Invalid value: 0.25: d");
  EXPECT_EQ(Invalid("spec.s", "x", "d").body(), "Invalid value: \"x\": d");
  EXPECT_EQ(Invalid("<nil>", nullptr, "d").text(), "<nil>: Invalid value: null: d");
  EXPECT_EQ(Required("spec.name").text(), "spec.name: Required value");
  EXPECT_EQ(Required("spec.name", "why").text(), "spec.name: Required value: why");
  EXPECT_EQ(NotSupported("spec.p", "X", {"A", "B"}).text(), R"(spec.p: Unsupported value: "X": supported values: "A", "B")");
  EXPECT_EQ(TooLong("spec.n", 63).text(), "spec.n: Too long: may not be more than 63 bytes");
  EXPECT_EQ(TooLong("spec.n", 1).text(), "spec.n: Too long: may not be more than 1 byte");
  EXPECT_EQ(TooMany("spec.l", 9, 8).text(), "spec.l: Too many: 9: must have at most 8 items");
  EXPECT_EQ(Forbidden("spec.f", "no").text(), "spec.f: Forbidden: no");
  EXPECT_EQ(Duplicate("spec.q[1]", nlohmann::json{{"name", "a"}}).text(),
            R"(spec.q[1]: Duplicate value: {"name":"a"})");
  EXPECT_EQ(Invalid("spec.l", nlohmann::json::array({1, "x"}), "d").body(), R"(Invalid value: [1,"x"]: d)");
  EXPECT_EQ(TypeInvalid("spec.w", "string", "d").reason(), "FieldValueTypeInvalid");
}

TEST(FieldErrorText, InvalidStatusJoinsCausesAsNewInvalid) {
  const ApiError one = InvalidStatus("gangplank.io", "GPUPool", "bad", {Required("spec")});
  EXPECT_EQ(one.code(), 422);
  EXPECT_EQ(one.reason(), "Invalid");
  EXPECT_STREQ(one.what(), R"(GPUPool.gangplank.io "bad" is invalid: spec: Required value)");
  const auto& cause = one.details()["causes"][0];
  EXPECT_EQ(cause["reason"], "FieldValueRequired");
  EXPECT_EQ(cause["field"], "spec");
  EXPECT_EQ(cause["message"], "Required value");
  EXPECT_EQ(one.details()["group"], "gangplank.io");
  EXPECT_EQ(one.details()["kind"], "GPUPool");

  // Two causes get brackets; a repeated message appears once in the text but twice in the causes.
  const ApiError two = InvalidStatus("gangplank.io", "GPUPool", "bad", {Required("a"), Required("b"), Required("a")});
  EXPECT_STREQ(two.what(), R"(GPUPool.gangplank.io "bad" is invalid: [a: Required value, b: Required value])");
  EXPECT_EQ(two.details()["causes"].size(), 3u);
}

}  // namespace
}  // namespace gangplank::apiserver_double::schema

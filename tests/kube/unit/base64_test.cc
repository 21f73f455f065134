// base/base64.h: RFC 4648's test vectors both ways, the URL alphabet without padding, and garbage refused.
#include "base/base64.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace gangplank::base {
namespace {

TEST(Base64, EncodesAndDecodesRfc4648sVectors) {
  const std::pair<const char*, const char*> vectors[] = {
      {"", ""}, {"f", "Zg=="}, {"fo", "Zm8="}, {"foo", "Zm9v"}, {"foob", "Zm9vYg=="}, {"fooba", "Zm9vYmE="}, {"foobar", "Zm9vYmFy"}};
  for (const auto& [plain, encoded] : vectors) {
    EXPECT_EQ(Base64Encode(plain), encoded) << plain;
    EXPECT_EQ(Base64Decode(encoded), plain) << encoded;
  }
  EXPECT_EQ(Base64Encode(std::string("\xff\x00\x10", 3)), "/wAQ");
}

TEST(Base64, TheUrlAlphabetHasNoPlusSlashOrPadding) {
  EXPECT_EQ(Base64UrlEncode(std::string("\xfb\xff", 2)), "-_8");
  EXPECT_EQ(Base64Encode(std::string("\xfb\xff", 2)), "+/8=");
  EXPECT_EQ(Base64UrlEncode("f"), "Zg");
}

TEST(Base64, DecodingSkipsWhitespaceAndRefusesGarbage) {
  EXPECT_EQ(Base64Decode("aGVsbG8gd29ybGQ="), "hello world");
  EXPECT_EQ(Base64Decode("aGVs\nbG8="), "hello");
  EXPECT_THROW(Base64Decode("a$b="), std::invalid_argument);
  EXPECT_THROW(Base64Decode("aGVsbG8=x"), std::invalid_argument);
  EXPECT_THROW(Base64Decode("aGVsb"), std::invalid_argument);
}

}  // namespace
}  // namespace gangplank::base

// CEL tokens and cel-go-style diagnostics.
#include <gtest/gtest.h>

#include "cel/lexer.h"

namespace gangplank::cel {
namespace {

std::vector<std::string> texts(const std::vector<Token>& tokens) {
  std::vector<std::string> out;
  for (const auto& t : tokens) out.push_back(t.text);
  return out;
}

TEST(CelLexer, TokensOfARule) {
  const auto tokens = Tokenize("self.a >= 1u && 'x\\n' != \"y\" || 0x1F == 2.5e1 // done");
  EXPECT_EQ(texts(tokens), (std::vector<std::string>{"self", ".", "a", ">=", "1", "&&", "x\n", "!=", "y", "||", "0x1F", "==", "2.5e1", "<EOF>"}));
  EXPECT_EQ(tokens[4].kind, TokenKind::kUint);
  EXPECT_EQ(tokens[6].kind, TokenKind::kString);
  EXPECT_EQ(tokens[12].kind, TokenKind::kDouble);
  EXPECT_EQ(tokens[3].pos, 7u);
}

TEST(CelLexer, StringForms) {
  EXPECT_EQ(Tokenize(R"(r'\d+')")[0].text, "\\d+");
  EXPECT_EQ(Tokenize("'''a'b'''")[0].text, "a'b");
  EXPECT_EQ(Tokenize(R"('\u00fc\x41')")[0].text, "\xc3\xbc" "A");
}

TEST(CelLexer, UnknownCharactersAndOpenStringsFail) {
  try {
    Tokenize("self.a # 1");
    FAIL() << "no error";
  } catch (const SyntaxError& e) {
    EXPECT_EQ(e.pos(), 7u);
    EXPECT_STREQ(e.what(), "Syntax error: token recognition error at: '#'");
  }
  EXPECT_THROW(Tokenize("'open"), SyntaxError);
  EXPECT_THROW(Tokenize(R"('\q')"), SyntaxError);
  EXPECT_THROW(Tokenize(R"('\uZZZZ')"), SyntaxError);
  EXPECT_THROW(Tokenize(R"('\x4')"), SyntaxError);
}

TEST(CelLexer, DiagnosticsPointAtTheColumn) {
  EXPECT_EQ(FormatDiagnostic("ab\ncd ef", 6, "boom"), "ERROR: <input>:2:4: boom\n | cd ef\n | ...^");
  EXPECT_EQ(FormatDiagnostic("x", 0, "m"), "ERROR: <input>:1:1: m\n | x\n | ^");
}

}  // namespace
}  // namespace gangplank::cel

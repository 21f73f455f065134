// Tokens of the Common Expression Language subset CRD validation rules use.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace gangplank::cel {

enum class TokenKind { kIdent, kInt, kUint, kDouble, kString, kOperator, kEnd };

struct Token {
  TokenKind kind = TokenKind::kEnd;
  std::string text;      // identifier, operator, or the literal's decoded value (strings) / spelling (numbers)
  std::size_t pos = 0;   // byte offset in the source
};

// A syntax error at a byte offset; format_diagnostic() renders it as cel-go does.
class SyntaxError : public std::runtime_error {
 public:
  SyntaxError(std::size_t pos, const std::string& message) : std::runtime_error(message), pos_(pos) {}
  std::size_t pos() const { return pos_; }

 private:
  std::size_t pos_;
};

// Throws SyntaxError("Syntax error: token recognition error at: '…'") on a character CEL does not know.
std::vector<Token> Tokenize(const std::string& source);

// `ERROR: <input>:L:C: message\n | source line\n | ....^` with a 1-based line and column.
std::string FormatDiagnostic(const std::string& source, std::size_t pos, const std::string& message);

}  // namespace gangplank::cel

#include "cel/lexer.h"

#include <algorithm>
#include <cctype>

namespace gangplank::cel {
namespace {

bool IdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool IdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

void AppendUtf8(std::string& out, unsigned long cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

class Lexer {
 public:
  explicit Lexer(const std::string& s) : s_(s) {}

  std::vector<Token> Run() {
    std::vector<Token> out;
    for (SkipSpace(); i_ < s_.size(); SkipSpace()) out.push_back(next());
    out.push_back({TokenKind::kEnd, "<EOF>", s_.size()});
    return out;
  }

 private:
  void SkipSpace() {
    while (i_ < s_.size()) {
      if (std::isspace(static_cast<unsigned char>(s_[i_]))) {
        ++i_;
      } else if (s_.compare(i_, 2, "//") == 0) {
        while (i_ < s_.size() && s_[i_] != '\n') ++i_;
      } else {
        return;
      }
    }
  }

  Token next() {
    const char c = s_[i_];
    const bool raw = (c == 'r' || c == 'R') && i_ + 1 < s_.size() && (s_[i_ + 1] == '"' || s_[i_ + 1] == '\'');
    if (raw) {
      const std::size_t start = i_++;
      return StringLiteral(start, true);
    }
    if (IdentStart(c)) return identifier();
    if (std::isdigit(static_cast<unsigned char>(c)) ||
        (c == '.' && i_ + 1 < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_ + 1])))) {
      return number();
    }
    if (c == '"' || c == '\'') return StringLiteral(i_, false);
    return op();
  }

  Token identifier() {
    const std::size_t start = i_;
    while (i_ < s_.size() && IdentChar(s_[i_])) ++i_;
    return {TokenKind::kIdent, s_.substr(start, i_ - start), start};
  }

  Token number() {
    const std::size_t start = i_;
    if (s_.compare(i_, 2, "0x") == 0 || s_.compare(i_, 2, "0X") == 0) {
      i_ += 2;
      while (i_ < s_.size() && std::isxdigit(static_cast<unsigned char>(s_[i_]))) ++i_;
      return IntegerSuffix(start);
    }
    bool is_double = false;
    while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) ++i_;
    if (i_ + 1 < s_.size() && s_[i_] == '.' && std::isdigit(static_cast<unsigned char>(s_[i_ + 1]))) {
      is_double = true;
      ++i_;
      while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) ++i_;
    }
    if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
      std::size_t j = i_ + 1;
      if (j < s_.size() && (s_[j] == '+' || s_[j] == '-')) ++j;
      if (j < s_.size() && std::isdigit(static_cast<unsigned char>(s_[j]))) {
        is_double = true;
        i_ = j;
        while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) ++i_;
      }
    }
    if (is_double) return {TokenKind::kDouble, s_.substr(start, i_ - start), start};
    return IntegerSuffix(start);
  }

  Token IntegerSuffix(std::size_t start) {
    if (i_ < s_.size() && (s_[i_] == 'u' || s_[i_] == 'U')) {
      ++i_;
      return {TokenKind::kUint, s_.substr(start, i_ - start - 1), start};
    }
    return {TokenKind::kInt, s_.substr(start, i_ - start), start};
  }

  Token StringLiteral(std::size_t start, bool raw) {
    const char q = s_[i_];
    const bool triple = s_.compare(i_, 3, std::string(3, q)) == 0;
    const std::string close = triple ? std::string(3, q) : std::string(1, q);
    i_ += close.size();
    std::string value;
    while (true) {
      if (i_ >= s_.size() || (!triple && s_[i_] == '\n')) throw SyntaxError(start, "Syntax error: token recognition error at: '" + s_.substr(start, i_ - start) + "'");
      if (s_.compare(i_, close.size(), close) == 0) break;
      if (s_[i_] == '\\' && !raw) {
        Escape(value);
      } else {
        value.push_back(s_[i_++]);
      }
    }
    i_ += close.size();
    return {TokenKind::kString, value, start};
  }

  void Escape(std::string& out) {
    const std::size_t at = i_;
    if (i_ + 1 >= s_.size()) throw SyntaxError(at, "Syntax error: token recognition error at: '\\'");
    const char e = s_[i_ + 1];
    i_ += 2;
    switch (e) {
      case 'n': out.push_back('\n'); return;
      case 't': out.push_back('\t'); return;
      case 'r': out.push_back('\r'); return;
      case 'a': out.push_back('\a'); return;
      case 'b': out.push_back('\b'); return;
      case 'f': out.push_back('\f'); return;
      case 'v': out.push_back('\v'); return;
      case '\\': case '\'': case '"': case '`': case '?': out.push_back(e); return;
      case 'x': case 'u': case 'U': {
        const std::size_t digits = e == 'x' ? 2 : e == 'u' ? 4 : 8;
        const bool hex = i_ + digits <= s_.size() &&
                         std::all_of(s_.begin() + static_cast<std::ptrdiff_t>(i_), s_.begin() + static_cast<std::ptrdiff_t>(i_ + digits),
                                     [](char h) { return std::isxdigit(static_cast<unsigned char>(h)); });
        if (!hex) throw SyntaxError(at, "Syntax error: token recognition error at: '\\" + std::string(1, e) + "'");
        AppendUtf8(out, std::stoul(s_.substr(i_, digits), nullptr, 16));
        i_ += digits;
        return;
      }
      default:
        throw SyntaxError(at, std::string("Syntax error: token recognition error at: '\\") + e + "'");
    }
  }

  Token op() {
    static const char* const two[] = {"==", "!=", "<=", ">=", "&&", "||"};
    for (const char* t : two) {
      if (s_.compare(i_, 2, t) == 0) {
        i_ += 2;
        return {TokenKind::kOperator, t, i_ - 2};
      }
    }
    static const std::string one = "+-*/%<>!?:.,[](){}";
    if (one.find(s_[i_]) == std::string::npos) {
      throw SyntaxError(i_, std::string("Syntax error: token recognition error at: '") + s_[i_] + "'");
    }
    ++i_;
    return {TokenKind::kOperator, std::string(1, s_[i_ - 1]), i_ - 1};
  }

  const std::string& s_;
  std::size_t i_ = 0;
};

}  // namespace

std::vector<Token> Tokenize(const std::string& source) { return Lexer(source).Run(); }

std::string FormatDiagnostic(const std::string& source, std::size_t pos, const std::string& message) {
  std::size_t line_start = 0, line = 1;
  for (std::size_t i = 0; i < pos && i < source.size(); ++i) {
    if (source[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  std::size_t line_end = source.find('\n', line_start);
  if (line_end == std::string::npos) line_end = source.size();
  std::size_t column = 0;  // in code points, as cel-go counts
  for (std::size_t i = line_start; i < pos && i < source.size(); ++i) column += (source[i] & 0xC0) != 0x80;
  return "ERROR: <input>:" + std::to_string(line) + ":" + std::to_string(column + 1) + ": " + message + "\n | " +
         source.substr(line_start, line_end - line_start) + "\n | " + std::string(column, '.') + "^";
}

}  // namespace gangplank::cel

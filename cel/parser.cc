#include "cel/parser.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>

namespace gangplank::cel {
namespace {

ExprPtr node(Expr e) { return std::make_shared<const Expr>(std::move(e)); }

ExprPtr Call(std::string name, std::size_t pos, std::vector<ExprPtr> args, ExprPtr target = nullptr) {
  Expr e;
  e.kind = Expr::Kind::kCall;
  e.name = std::move(name);
  e.pos = pos;
  e.args = std::move(args);
  e.target = std::move(target);
  return node(std::move(e));
}

ExprPtr literal(Value v, std::size_t pos) {
  Expr e;
  e.kind = Expr::Kind::kLiteral;
  e.literal = std::move(v);
  e.pos = pos;
  return node(std::move(e));
}

class Parser {
 public:
  explicit Parser(const std::string& source) : tokens_(Tokenize(source)) {}

  ExprPtr Run() {
    ExprPtr e = expr();
    if (Peek().kind != TokenKind::kEnd) Fail("<EOF>");
    return e;
  }

 private:
  const Token& Peek() const { return tokens_[i_]; }
  bool at(const char* op) const { return Peek().kind == TokenKind::kOperator && Peek().text == op; }
  bool Accept(const char* op) {
    if (!at(op)) return false;
    ++i_;
    return true;
  }
  void Expect(const char* op) {
    if (!Accept(op)) Fail(std::string("'") + op + "'");
  }
  [[noreturn]] void Fail(const std::string& expecting) const {
    const Token& t = Peek();
    const std::string seen = t.kind == TokenKind::kEnd ? "'<EOF>'" : t.kind == TokenKind::kString ? "'\"" + t.text + "\"'" : "'" + t.text + "'";
    throw SyntaxError(t.pos, "Syntax error: mismatched input " + seen + " expecting " + expecting);
  }

  ExprPtr expr() {
    ExprPtr cond = BinaryChain(0);
    if (!at("?")) return cond;
    const std::size_t pos = Peek().pos;
    ++i_;
    ExprPtr then = BinaryChain(0);
    Expect(":");
    ExprPtr otherwise = expr();
    return Call("_?_:_", pos, {cond, then, otherwise});
  }

  // Binary operators by precedence level, lowest first; each level is left-associative.
  ExprPtr BinaryChain(int level) {
    static const std::vector<std::vector<std::string>> levels = {
        {"||"}, {"&&"}, {"==", "!=", "<", "<=", ">", ">=", "in"}, {"+", "-"}, {"*", "/", "%"}};
    if (level == static_cast<int>(levels.size())) return unary();
    ExprPtr left = BinaryChain(level + 1);
    while (true) {
      const Token& t = Peek();
      const bool op = (t.kind == TokenKind::kOperator || (t.kind == TokenKind::kIdent && t.text == "in"));
      if (!op || std::find(levels[level].begin(), levels[level].end(), t.text) == levels[level].end()) return left;
      const std::string name = t.text == "in" ? "@in" : "_" + t.text + "_";
      const std::size_t pos = t.pos;
      ++i_;
      left = Call(name, pos, {left, BinaryChain(level + 1)});
    }
  }

  ExprPtr unary() {
    if (at("!")) {
      const std::size_t pos = Peek().pos;
      ++i_;
      return Call("!_", pos, {unary()});
    }
    if (at("-")) {
      const std::size_t pos = Peek().pos;
      ++i_;
      if (Peek().kind == TokenKind::kInt || Peek().kind == TokenKind::kDouble) return number(true);
      return Call("-_", pos, {unary()});
    }
    return member(primary());
  }

  ExprPtr member(ExprPtr operand) {
    while (true) {
      if (at(".")) {
        const std::size_t pos = Peek().pos;
        ++i_;
        if (Peek().kind != TokenKind::kIdent) Fail("IDENTIFIER");
        const std::string name = tokens_[i_++].text;
        if (at("(")) {
          const std::size_t call_pos = Peek().pos;
          ++i_;
          operand = method(operand, name, call_pos, arguments(")"));
        } else {
          Expr e;
          e.kind = Expr::Kind::kSelect;
          e.name = name;
          e.target = operand;
          e.pos = pos;
          operand = node(std::move(e));
        }
      } else if (at("[")) {
        const std::size_t pos = Peek().pos;
        ++i_;
        ExprPtr index = expr();
        Expect("]");
        operand = Call("_[_]", pos, {operand, index});
      } else {
        return operand;
      }
    }
  }

  std::vector<ExprPtr> arguments(const char* close) {
    std::vector<ExprPtr> args;
    if (Accept(close)) return args;
    do {
      if (at(close)) break;  // trailing comma
      args.push_back(expr());
    } while (Accept(","));
    Expect(close);
    return args;
  }

  ExprPtr method(ExprPtr target, const std::string& name, std::size_t pos, std::vector<ExprPtr> args) {
    static const std::vector<std::string> macros = {"all", "exists", "exists_one", "map", "filter"};
    const bool macro = std::find(macros.begin(), macros.end(), name) != macros.end() &&
                       (args.size() == 2 || (name == "map" && args.size() == 3));
    if (!macro) return Call(name, pos, std::move(args), std::move(target));
    if (args[0]->kind != Expr::Kind::kIdent) throw SyntaxError(args[0]->pos, "argument must be a simple name");
    Expr e;
    e.kind = Expr::Kind::kComprehension;
    e.name = name;
    e.pos = pos;
    e.target = std::move(target);
    e.iter_var = args[0]->name;
    e.args.assign(args.begin() + 1, args.end());
    return node(std::move(e));
  }

  ExprPtr primary() {
    const Token t = Peek();
    switch (t.kind) {
      case TokenKind::kInt:
      case TokenKind::kDouble: return number(false);
      case TokenKind::kUint: {
        ++i_;
        errno = 0;
        const unsigned long long v = std::strtoull(t.text.c_str(), nullptr, 0);
        if (errno == ERANGE) throw SyntaxError(t.pos, "invalid uint literal");
        return literal(static_cast<uint64_t>(v), t.pos);
      }
      case TokenKind::kString: ++i_; return literal(t.text, t.pos);
      case TokenKind::kIdent: return identifier();
      case TokenKind::kOperator: return grouping();
      case TokenKind::kEnd: break;
    }
    Fail("{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}");
  }

  ExprPtr number(bool negative) {
    const Token t = tokens_[i_++];
    const std::string text = (negative ? "-" : "") + t.text;
    errno = 0;
    if (t.kind == TokenKind::kDouble) return literal(std::strtod(text.c_str(), nullptr), t.pos);
    const long long v = std::strtoll(text.c_str(), nullptr, 0);
    if (errno == ERANGE) throw SyntaxError(t.pos, "invalid int literal");
    return literal(static_cast<int64_t>(v), t.pos);
  }

  ExprPtr identifier() {
    const Token t = tokens_[i_++];
    if (t.text == "true" || t.text == "false") return literal(t.text == "true", t.pos);
    if (t.text == "null") return literal(Value(), t.pos);
    if (!at("(")) {
      Expr e;
      e.kind = Expr::Kind::kIdent;
      e.name = t.text;
      e.pos = t.pos;
      return node(std::move(e));
    }
    const std::size_t pos = Peek().pos;
    ++i_;
    std::vector<ExprPtr> args = arguments(")");
    if (t.text == "has") return has(pos, args);
    return Call(t.text, pos, std::move(args));
  }

  ExprPtr has(std::size_t pos, const std::vector<ExprPtr>& args) {
    if (args.size() != 1 || args[0]->kind != Expr::Kind::kSelect) throw SyntaxError(pos, "invalid argument to has() macro");
    Expr e = *args[0];
    e.test_only = true;
    return node(std::move(e));
  }

  ExprPtr grouping() {
    const Token t = Peek();
    if (Accept("(")) {
      ExprPtr e = expr();
      Expect(")");
      return e;
    }
    if (Accept("[")) {
      Expr e;
      e.kind = Expr::Kind::kList;
      e.pos = t.pos;
      e.args = arguments("]");
      return node(std::move(e));
    }
    if (Accept("{")) return MapLiteral(t.pos);
    if (Accept(".") && Peek().kind == TokenKind::kIdent) return identifier();  // leading-dot global name
    Fail("{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}");
  }

  ExprPtr MapLiteral(std::size_t pos) {
    Expr e;
    e.kind = Expr::Kind::kMap;
    e.pos = pos;
    if (!Accept("}")) {
      do {
        if (at("}")) break;
        e.args.push_back(expr());
        Expect(":");
        e.args.push_back(expr());
      } while (Accept(","));
      Expect("}");
    }
    return node(std::move(e));
  }

  std::vector<Token> tokens_;
  std::size_t i_ = 0;
};

}  // namespace

ExprPtr Parse(const std::string& source) { return Parser(source).Run(); }

}  // namespace gangplank::cel

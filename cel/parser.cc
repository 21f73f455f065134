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

  // cel-go refuses an expression nested deeper than this; so does the parser, before its own recursion
  // could exhaust the stack.
  static constexpr int kMaxDepth = 250;

  struct Nested {
    explicit Nested(Parser& p) : parser(p) {
      if (++parser.depth_ > kMaxDepth) {
        throw SyntaxError(parser.Peek().pos, "expression recursion limit exceeded: " + std::to_string(kMaxDepth));
      }
    }
    ~Nested() { --parser.depth_; }
    Nested(const Nested&) = delete;
    Nested& operator=(const Nested&) = delete;
    Parser& parser;
  };

  ExprPtr expr() {
    const Nested nested(*this);
    ExprPtr cond = BinaryChain(0);
    if (!at("?")) return cond;
    const std::size_t pos = Peek().pos;
    ++i_;
    ExprPtr then = BinaryChain(0);
    Expect(":");
    ExprPtr otherwise = expr();
    return Call("_?_:_", pos, {cond, then, otherwise});
  }

  // Binary operators by precedence level, lowest first; each level is left-associative, except that a
  // chain of || or of && becomes a balanced tree (as cel-go builds it: the operators are associative),
  // so a long selector of conditions stays shallow.
  ExprPtr BinaryChain(int level) {
    static const std::vector<std::vector<std::string>> levels = {
        {"||"}, {"&&"}, {"==", "!=", "<", "<=", ">", ">=", "in"}, {"+", "-"}, {"*", "/", "%"}};
    if (level == static_cast<int>(levels.size())) return unary();
    if (level < 2) return LogicalChain(levels[level][0], level);
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

  ExprPtr LogicalChain(const std::string& op, int level) {
    std::vector<ExprPtr> operands = {BinaryChain(level + 1)};
    std::vector<std::size_t> positions;  // positions[i]: the operator between operands i and i + 1
    while (at(op.c_str())) {
      positions.push_back(Peek().pos);
      ++i_;
      operands.push_back(BinaryChain(level + 1));
    }
    return Balance("_" + op + "_", operands, positions, 0, operands.size());
  }

  static ExprPtr Balance(const std::string& name, const std::vector<ExprPtr>& operands,
                         const std::vector<std::size_t>& positions, std::size_t lo, std::size_t hi) {
    if (hi - lo == 1) return operands[lo];
    const std::size_t mid = (lo + hi) / 2;
    return Call(name, positions[mid - 1], {Balance(name, operands, positions, lo, mid), Balance(name, operands, positions, mid, hi)});
  }

  ExprPtr unary() {
    const Nested nested(*this);
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
    if (name == "bind" && target->kind == Expr::Kind::kIdent && target->name == "cel" && args.size() == 3) {
      return bind(pos, std::move(args));
    }
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

  // cel.bind(name, value, body), cel-go's bindings extension.
  ExprPtr bind(std::size_t pos, std::vector<ExprPtr> args) {
    if (args[0]->kind != Expr::Kind::kIdent) throw SyntaxError(args[0]->pos, "cel.bind() variable names must be simple identifiers");
    Expr e;
    e.kind = Expr::Kind::kBind;
    e.name = "cel.bind";
    e.pos = pos;
    e.iter_var = args[0]->name;
    e.target = std::move(args[1]);
    e.args = {std::move(args[2])};
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
  int depth_ = 0;
};

}  // namespace

ExprPtr Parse(const std::string& source) { return Parser(source).Run(); }

}  // namespace gangplank::cel

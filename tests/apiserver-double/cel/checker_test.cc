// Rule compilation: what kube-apiserver's CEL environment refuses when a CRD is written.
#include <gtest/gtest.h>

#include "apiserver-double/cel/checker.h"
#include "apiserver-double/schema/schema.h"

namespace gangplank::apiserver_double::cel {
namespace {

const schema::Schema& spec() {
  static const schema::Schema s = schema::Schema::Parse(
      {{"type", "object"},
       {"properties", {{"gpus", {{"type", "integer"}}}, {"weight", {{"type", "number"}}}, {"name", {{"type", "string"}}},
                       {"port", {{"x-kubernetes-int-or-string", true}}},
                       {"queues", {{"type", "array"}, {"items", {{"type", "object"}, {"properties", {{"name", {{"type", "string"}}}}}}}}},
                       {"labels", {{"type", "object"}, {"additionalProperties", {{"type", "string"}}}}}}}});
  return s;
}

std::string errors_of(const std::string& rule, ResultType result = ResultType::kBool) {
  return Compile(rule, &spec(), false, result).errors;
}

TEST(CelChecker, WellTypedRulesCompile) {
  for (const char* rule : {"self.weight > 0", "self.gpus >= 1 && self.weight <= 2.5", "self.port > 1 || self.port == 'http'",
                           "self.queues.all(q, q.name.startsWith('team-'))", "self.labels.all(k, self.labels[k].size() < 64)",
                           "size(self.name) < 10 ? true : self.name.matches('^[a-z]+$')", "self.queues.map(q, q.name).join(',') != ''",
                           "!has(self.gpus) || self.gpus % 2 == 0", "int(self.weight) + self.gpus > 0", "self == oldSelf"}) {
    EXPECT_EQ(errors_of(rule), "") << rule;
  }
  const Compiled c = Compile("self.gpus == oldSelf.gpus", &spec(), false);
  EXPECT_TRUE(c.uses_old_self);
  EXPECT_TRUE(c.program);
}

TEST(CelChecker, OverloadMismatchesAreCompileErrors) {
  EXPECT_EQ(errors_of("self.weight * 2 > 1.0"),
            "compilation failed: ERROR: <input>:1:13: found no matching overload for '_*_' applied to '(double, int)'\n"
            " | self.weight * 2 > 1.0\n | ............^");
  EXPECT_NE(errors_of("self.gpus.startsWith('a')").find("found no matching overload for 'startsWith' applied to 'int.(string)'"), std::string::npos);
  EXPECT_NE(errors_of("self.name > 1").find("found no matching overload for '_>_' applied to '(string, int)'"), std::string::npos);
  EXPECT_NE(errors_of("self.gpus > 0 ? 'a' : 1").find("'_?_:_' applied to '(bool, string, int)'"), std::string::npos);
  EXPECT_NE(errors_of("!self.name").find("'!_' applied to '(string)'"), std::string::npos);
}

TEST(CelChecker, FieldsAndRangesFollowTheSchema) {
  EXPECT_NE(errors_of("self.queues.all(q, q.nme == 'a')").find("undefined field 'nme'"), std::string::npos);
  EXPECT_NE(errors_of("self.name.first == 'a'").find("type 'string' does not support field selection"), std::string::npos);
  EXPECT_NE(errors_of("self.gpus.all(x, true)").find("expression of type 'int' cannot be range of a comprehension"), std::string::npos);
  EXPECT_EQ(errors_of("self.labels.anything == 'x'"), "");  // maps take any key
}

TEST(CelChecker, ResultTypes) {
  EXPECT_EQ(errors_of("self.gpus + 1"), "cel expression must evaluate to a bool");
  EXPECT_EQ(errors_of("'gpus: ' + string(self.gpus)", ResultType::kString), "");
  EXPECT_EQ(errors_of("self.gpus", ResultType::kString), "must evaluate to a string");
  EXPECT_EQ(errors_of("self.port", ResultType::kBool), "");  // dyn may be a bool at run time
}

TEST(CelChecker, RootSeesApiVersionKindAndMetadata) {
  EXPECT_EQ(Compile("self.metadata.name.startsWith('x') && self.kind == 'Pool' && self.apiVersion != ''", &spec(), true).errors, "");
  EXPECT_NE(Compile("self.metadata.name.startsWith('x')", &spec(), false).errors.find("undefined field 'metadata'"), std::string::npos);
}

}  // namespace
}  // namespace gangplank::apiserver_double::cel

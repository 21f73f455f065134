// DRA device selectors end to end: Program::Compile with DraSelectorOptions(), a `device` built by
// DraDeviceValue. The cases follow the shapes k8s.io/dynamic-resource-allocation/cel checks (compile_test.go),
// with GPU devices.
#include <gtest/gtest.h>

#include "cel/dra_device.h"
#include "cel/program.h"

namespace gangplank::cel {
namespace {

constexpr const char* kDriver = "gpu.nvidia.com";

DraDevice H100() {
  DraDevice d;
  d.driver = kDriver;
  d.attributes = {{"type", "gpu"},
                  {"productName", "NVIDIA H100 80GB HBM3"},
                  {"profile", "1g.10gb"},
                  {"index", 3},
                  {"cudaComputeCapability", Semver::Parse("9.0.0")},
                  {"driverVersion", Semver::Parse("550.54.15")},
                  {"nvlink", true},
                  {"sharing.example.com/modes", List{"time-slicing", "mps"}},
                  {"uuids", List{Value("GPU-a"), Value("GPU-b")}},
                  {"numaNodes", List{0, 1}},
                  {"flags", List{true, false}},
                  {"supportedVersions", List{Semver::Parse("1.0.0"), Semver::Parse("2.0.0")}}};
  d.capacity = {{"memory", Quantity::Parse("80Gi")}, {"sharing.example.com/slots", Quantity::Parse("4")}};
  return d;
}

bool Selects(const std::string& expression, const DraDevice& device = H100()) {
  return Program::Compile(expression, DraSelectorOptions()).EvaluateBool(DraActivation(device));
}

std::string SelectError(const std::string& expression, const DraDevice& device = H100()) {
  const Program program = Program::Compile(expression, DraSelectorOptions());
  try {
    program.EvaluateBool(DraActivation(device));
  } catch (const EvalError& e) {
    return e.what();
  }
  return "<no error>";
}

std::string CompileErrorOf(const std::string& expression) {
  try {
    Program::Compile(expression, DraSelectorOptions());
  } catch (const CompileError& e) {
    return e.what();
  }
  return "<compiled>";
}

TEST(DraSelector, TheSelectorsOfTheNvidiaDriver) {
  EXPECT_TRUE(Selects("device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'"));
  EXPECT_TRUE(Selects("device.attributes['gpu.nvidia.com'].profile == '1g.10gb'"));
  EXPECT_TRUE(Selects("device.attributes['gpu.nvidia.com'].productName.startsWith('NVIDIA H100')"));
  EXPECT_FALSE(Selects("device.attributes['gpu.nvidia.com'].productName.startsWith('NVIDIA A100')"));
  EXPECT_TRUE(Selects("device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('40Gi')) >= 0"));
  EXPECT_FALSE(Selects("device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('81Gi')) >= 0"));
  EXPECT_TRUE(Selects("device.attributes['gpu.nvidia.com'].cudaComputeCapability.isGreaterThan(semver('8.0.0'))"));
  EXPECT_FALSE(Selects("device.attributes['gpu.nvidia.com'].cudaComputeCapability.isLessThan(semver('8.0.0'))"));
}

TEST(DraSelector, ConstantsAndTheDriver) {
  EXPECT_TRUE(Selects("true"));
  EXPECT_FALSE(Selects("false"));
  DraDevice unnamed;
  EXPECT_TRUE(Selects("device.driver == ''", unnamed));
  EXPECT_TRUE(Selects("device.driver == 'gpu.nvidia.com'"));
}

TEST(DraSelector, NamesWithoutADomainAreInTheDriversDomain) {
  EXPECT_TRUE(Selects("device.attributes['gpu.nvidia.com'].nvlink"));
  EXPECT_TRUE(Selects("device.attributes['gpu.nvidia.com']['nvlink']"));
  EXPECT_TRUE(Selects("device.attributes['sharing.example.com'].modes == ['time-slicing', 'mps']"));
  EXPECT_TRUE(Selects("device.capacity['sharing.example.com'].slots.asInteger() == 4"));
  EXPECT_TRUE(Selects("'gpu.nvidia.com' in device.attributes && !('amd.com' in device.attributes)"));
  EXPECT_TRUE(Selects("cel.bind(gpu, device.attributes['gpu.nvidia.com'], gpu.nvlink && gpu.index == 3)"));
}

TEST(DraSelector, AttributeKinds) {
  EXPECT_TRUE(Selects("device.attributes['gpu.nvidia.com'].index > 0"));
  EXPECT_TRUE(Selects("device.attributes['gpu.nvidia.com'].type == 'gpu'"));
  for (const char* list : {"uuids", "numaNodes", "flags", "supportedVersions"}) {
    EXPECT_TRUE(Selects(std::string("device.attributes['gpu.nvidia.com'].") + list + ".size() == 2")) << list;
  }
  EXPECT_TRUE(Selects("1 in device.attributes['gpu.nvidia.com'].numaNodes"));
  EXPECT_TRUE(Selects("device.attributes['gpu.nvidia.com'].numaNodes.exists(n, n > 0)"));
  EXPECT_TRUE(Selects("device.attributes['gpu.nvidia.com'].uuids.all(u, u != '')"));
  EXPECT_TRUE(Selects("device.attributes['gpu.nvidia.com'].supportedVersions.all(v, v.isGreaterThan(semver('0.0.1')))"));
  EXPECT_EQ(SelectError("device.attributes['gpu.nvidia.com'].uuids"), "CEL result of type list could not be converted to bool");
  EXPECT_EQ(SelectError("device.attributes['gpu.nvidia.com'].index.exists(x, x > 0)"), "no such overload");
}

TEST(DraSelector, MissingAttributesAreNoSuchKey) {
  EXPECT_EQ(SelectError("device.attributes['no-such-domain'].noSuchAttr.isGreaterThan(quantity('0'))"), "no such key: noSuchAttr");
  EXPECT_EQ(SelectError("device.attributes['no-such-domain']['noSuchAttr'].isGreaterThan(quantity('0'))"), "no such key: noSuchAttr");
  EXPECT_EQ(SelectError("device.attributes['gpu.nvidia.com'].memoryBandwidth > 1"), "no such key: memoryBandwidth");
  EXPECT_FALSE(Selects("has(device.attributes['gpu.nvidia.com'].memoryBandwidth)"));
  EXPECT_TRUE(Selects("has(device.attributes['gpu.nvidia.com'].productName)"));
  // Guarding with `in` or has() works on either side of || and &&: the error is absorbed.
  DraDevice bare;
  bare.driver = kDriver;
  EXPECT_TRUE(Selects("!('memory' in device.capacity['gpu.nvidia.com']) || device.capacity['gpu.nvidia.com'].memory.isGreaterThan(quantity('1Ki'))", bare));
  EXPECT_TRUE(Selects("device.capacity['gpu.nvidia.com'].memory.isGreaterThan(quantity('1Ki')) || !has(device.capacity['gpu.nvidia.com'].memory)", bare));
  EXPECT_FALSE(Selects("device.attributes['gpu.nvidia.com'].nvlink && false", bare));
  EXPECT_TRUE(Selects("'memory' in device.capacity['gpu.nvidia.com'] && device.capacity['gpu.nvidia.com'].memory.isGreaterThan(quantity('1Ki'))"));
}

TEST(DraSelector, WrongTypesAreNoSuchOverload) {
  EXPECT_EQ(SelectError("device.attributes['gpu.nvidia.com'].productName.isGreaterThan(quantity('1'))"), "no such overload");
  EXPECT_EQ(SelectError("device.capacity['gpu.nvidia.com'].memory > 5"), "no such overload");
  EXPECT_EQ(SelectError("device.capacity['gpu.nvidia.com'].memory == '80Gi'"), "no such overload");
  EXPECT_EQ(SelectError("device.attributes['gpu.nvidia.com'].cudaComputeCapability.isGreaterThan(quantity('8'))"), "no such overload");
  EXPECT_EQ(SelectError("device.attributes['gpu.nvidia.com'].index + 'x' == 'x'"), "no such overload");
}

TEST(DraSelector, EveryKindOfLookupInOneSelector) {
  EXPECT_TRUE(Selects(R"(
device.capacity["gpu.nvidia.com"].memory.isGreaterThan(quantity("1Ki")) &&
device.attributes["gpu.nvidia.com"].nvlink &&
device.attributes["gpu.nvidia.com"].index > 0 &&
device.attributes["gpu.nvidia.com"].type == "gpu" &&
device.attributes["gpu.nvidia.com"].driverVersion.isGreaterThan(semver("0.0.1")) &&
device.capacity["gpu.nvidia.com"]["memory"].isGreaterThan(quantity("1Ki")) &&
device.attributes["gpu.nvidia.com"]["nvlink"] &&
device.attributes["gpu.nvidia.com"]["driverVersion"].major() == 550
)"));
}

TEST(DraSelector, DomainsIdsStringsAndPatterns) {
  EXPECT_TRUE(Selects("device.attributes.exists_one(d, d == 'gpu.nvidia.com')"));
  EXPECT_TRUE(Selects("device.attributes['gpu.nvidia.com'].exists_one(a, a == 'profile')"));
  EXPECT_TRUE(Selects("device.capacity.exists_one(d, d == 'sharing.example.com')"));
  EXPECT_TRUE(Selects("device.capacity['gpu.nvidia.com'].exists_one(c, c == 'memory')"));
  EXPECT_TRUE(Selects("device.attributes['gpu.nvidia.com'].productName.split(' ').size() >= 2"));
  EXPECT_TRUE(Selects("device.attributes['gpu.nvidia.com'].productName.matches('[^A]?H100')"));
  EXPECT_TRUE(Selects("device.attributes['gpu.nvidia.com'].profile.matches('^[0-9]+g\\\\.[0-9]+gb$')"));
  EXPECT_TRUE(Selects("semver('v9', true) == device.attributes['gpu.nvidia.com'].cudaComputeCapability && isSemver('v1.0.0', true)"));
}

TEST(DraSelector, AllowMultipleAllocations) {
  DraDevice shared = H100();
  shared.allow_multiple_allocations = true;
  EXPECT_TRUE(Selects("device.allowMultipleAllocations == true", shared));
  EXPECT_TRUE(Selects("device.allowMultipleAllocations == false"));
}

TEST(DraSelector, CompileErrors) {
  EXPECT_NE(CompileErrorOf("?!").find("Syntax error"), std::string::npos);
  EXPECT_NE(CompileErrorOf("devices.driver == ''").find("undeclared reference to 'devices'"), std::string::npos);
  EXPECT_NE(CompileErrorOf("device.driver.startWith('x')").find("undeclared reference to 'startWith'"), std::string::npos);
  EXPECT_NE(CompileErrorOf("device.driver.matches('(')").find("invalid regular expression: ("), std::string::npos);
  EXPECT_EQ(SelectError("1"), "CEL result of type int could not be converted to bool");  // refused at run time, not compile time
}

TEST(DraSelector, AHostileSelectorRunsOutOfSteps) {
  const std::string ten = "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]";
  std::string expression = "int('1'.substring(0, 1)) < 100";
  for (const char* var : {"a", "b", "c", "d", "e", "f", "g"}) expression = ten + ".all(" + var + ", " + expression + ")";
  EXPECT_EQ(SelectError(expression), "operation cancelled: actual cost limit exceeded");
}

TEST(DraSelector, ManyAttributesFitTheDefaultCap) {
  DraDevice many;
  many.driver = "dra.example.com";
  for (int64_t i = 0; i < 1000; ++i) many.attributes.emplace_back("attr" + std::to_string(i), i);
  const std::string expression =
      "device.attributes['dra.example.com'].map(key, device.attributes['dra.example.com'][key] * 20).filter(e, e > 50).exists(e, e == 60)";
  EXPECT_TRUE(Selects(expression, many));
  CompileOptions tight = DraSelectorOptions();
  tight.max_steps = 5000;
  const Program capped = Program::Compile(expression, tight);
  EXPECT_THROW(capped.Evaluate(DraActivation(many)), EvalError);
}

}  // namespace
}  // namespace gangplank::cel

// The string methods of Kubernetes' CEL environments: the core ones and cel-go's strings extension
// (version 2); positions count code points.
#include <gtest/gtest.h>

#include "tests/cel/expression_helpers.h"


namespace gangplank::cel {
namespace {

using test_support::error_of;
using test_support::eval;
using test_support::holds;

TEST(CelStrings, PrefixesSuffixesAndCase) {
  EXPECT_TRUE(holds("'NVIDIA H100'.startsWith('NVIDIA') && 'a100-sxm4'.endsWith('sxm4') && 'mig-1g.10gb'.contains('1g')"));
  EXPECT_TRUE(holds("'NVIDIA H100'.lowerAscii() == 'nvidia h100' && 'h100'.upperAscii() == 'H100'"));
  EXPECT_TRUE(holds("'\\u00e9a'.upperAscii() == '\\u00e9A'"));  // only ASCII letters change
  EXPECT_TRUE(holds("'  gpu \\n'.trim() == 'gpu'"));
  EXPECT_TRUE(holds("size('h\\u00e9') == 2"));
}

TEST(CelStrings, Positions) {
  EXPECT_EQ(eval("'gpu.nvidia.com'.indexOf('.')").as<int64_t>(), 3);
  EXPECT_EQ(eval("'gpu.nvidia.com'.indexOf('.', 4)").as<int64_t>(), 10);
  EXPECT_EQ(eval("'gpu.nvidia.com'.lastIndexOf('.')").as<int64_t>(), 10);
  EXPECT_EQ(eval("'gpu.nvidia.com'.lastIndexOf('.', 9)").as<int64_t>(), 3);
  EXPECT_EQ(eval("'gpu'.indexOf('x')").as<int64_t>(), -1);
  EXPECT_EQ(eval("'gpu'.indexOf('')").as<int64_t>(), 0);
  EXPECT_EQ(eval("'gpu'.lastIndexOf('')").as<int64_t>(), 3);
  EXPECT_EQ(eval("''.lastIndexOf('a')").as<int64_t>(), -1);
  EXPECT_EQ(eval("'\\u00e9t\\u00e9'.indexOf('t')").as<int64_t>(), 1);  // code points, not bytes
  EXPECT_EQ(eval("'h100'.charAt(1)").str(), "1");
  EXPECT_EQ(eval("'h100'.charAt(4)").str(), "");
  EXPECT_EQ(eval("'\\u00e9t\\u00e9'.charAt(2)").str(), "\xc3\xa9");
  EXPECT_EQ(eval("'NVIDIA H100'.substring(7)").str(), "H100");
  EXPECT_EQ(eval("'NVIDIA H100'.substring(0, 6)").str(), "NVIDIA");
  EXPECT_EQ(error_of("'h100'.charAt(5)"), "index out of range: 5");
  EXPECT_EQ(error_of("'h100'.indexOf('1', -1)"), "index out of range: -1");
  EXPECT_EQ(error_of("'h100'.substring(3, 1)"), "invalid substring range. start: 3, end: 1");
  EXPECT_EQ(error_of("'h100'.substring(9)"), "index out of range: 9");
}

TEST(CelStrings, ReplaceAndSplit) {
  EXPECT_EQ(eval("'1g.10gb'.replace('g', 'G')").str(), "1G.10Gb");
  EXPECT_EQ(eval("'1g.10gb'.replace('g', 'G', 1)").str(), "1G.10gb");
  EXPECT_EQ(eval("'ab'.replace('', '-')").str(), "-a-b-");
  EXPECT_TRUE(holds("'a,b,c'.split(',') == ['a', 'b', 'c']"));
  EXPECT_TRUE(holds("'a,b,c'.split(',', 2) == ['a', 'b,c']"));
  EXPECT_TRUE(holds("'a,b,c'.split(',', 0) == []"));
  EXPECT_TRUE(holds("'ab'.split('') == ['a', 'b']"));
  EXPECT_TRUE(holds("['a', 'b'].join() == 'ab' && ['a', 'b'].join('/') == 'a/b'"));
}

TEST(CelStrings, RegularExpressions) {
  EXPECT_TRUE(holds("'asymetric'.matches('[^a]?sym')"));
  EXPECT_TRUE(holds("'NVIDIA H100 80GB HBM3'.matches('^NVIDIA (H100|H200)')"));
  EXPECT_TRUE(holds("'h100'.matches('(?i)^H100$')"));
  EXPECT_TRUE(holds("matches('mig-1g.10gb', '\\\\d+g\\\\.\\\\d+gb$')"));
  EXPECT_FALSE(holds("'a100'.matches('^h')"));
  EXPECT_EQ(error_of("'x'.matches('[')"), "invalid regular expression: [");
}

TEST(CelStrings, ListFunctions) {
  EXPECT_EQ(eval("[3, 1, 2].sum()").as<int64_t>(), 6);
  EXPECT_DOUBLE_EQ(eval("[0.5, 0.25].sum()").as<double>(), 0.75);
  EXPECT_EQ(eval("[].sum()").as<int64_t>(), 0);
  EXPECT_EQ(eval("['a', 'b', 'a'].indexOf('a')").as<int64_t>(), 0);
  EXPECT_EQ(eval("['a', 'b', 'a'].lastIndexOf('a')").as<int64_t>(), 2);
  EXPECT_EQ(eval("[1, 2].indexOf(3)").as<int64_t>(), -1);
  EXPECT_EQ(error_of("['a'].sum()"), "no such overload");
}

TEST(CelStrings, WrongTypesAreNoSuchOverload) {
  EXPECT_EQ(error_of("'a'.startsWith(1)"), "no such overload");
  EXPECT_EQ(error_of("'a'.charAt('1')"), "no such overload");
  EXPECT_EQ(error_of("1.startsWith('a')"), "no such overload");
  EXPECT_EQ(error_of("'a'.split()"), "no such overload");
}

}  // namespace
}  // namespace gangplank::cel

// A test run once with Helm 3 and once with Helm 4: INSTANTIATE_TEST_SUITE_P(Helm, <fixture>,
// ::testing::Values(3, 4), EachHelmName). Helm 4 is optional (scripts/install-kube-tools.sh installs it):
// without it its runs skip; without Helm 3 they fail.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "tests/helm/support/helm_tool.h"

namespace gangplank::helm_testing {

class EachHelm : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override {
    const std::string why = tool().unavailable_reason();
    if (!why.empty()) {
      if (GetParam() == 4) GTEST_SKIP() << why;
      FAIL() << why;
    }
    ASSERT_EQ(tool().major_version(), GetParam()) << tool().path();
  }
  const HelmTool& tool() const { return GetParam() == 3 ? helm3() : helm4(); }
};

inline std::string EachHelmName(const ::testing::TestParamInfo<int>& info) { return "Helm" + std::to_string(info.param); }

}  // namespace gangplank::helm_testing

// manifests/ and the chart's crds/ cannot drift: manifests/ is what scripts/render-manifests.sh renders
// from the chart now, byte for byte; and the chart's CRDs are the repository's crds/, byte for byte. (That
// the plain manifests apply to a real API server is ManifestsDryRun in tests/real-cluster.)
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <set>

#include "tests/support/subprocess.h"
#include "tests/helm/support/helm_tool.h"

namespace gangplank::helm_testing {
namespace {

namespace fs = std::filesystem;
using gangplank::testing::run_process;


std::set<std::string> yaml_files(const fs::path& dir) {
  std::set<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() == ".yaml") out.insert(e.path().filename().string());
  }
  return out;
}

TEST(Manifests, AreWhatTheChartRendersNow) {
  const std::string why = helm3().unavailable_reason();
  if (!why.empty()) FAIL() << why;
  const fs::path out = fs::temp_directory_path() / ("gangplank-manifests-" + std::to_string(::getpid()));
  fs::remove_all(out);
  const auto r = run_process({"/usr/bin/env", "HELM=" + helm3().path(), source_dir() + "/scripts/render-manifests.sh", "--out", out.string()}, "",
                             std::chrono::seconds(60));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const fs::path committed = fs::path(source_dir()) / "manifests";
  EXPECT_EQ(yaml_files(out), yaml_files(committed));
  for (const auto& f : yaml_files(committed)) {
    EXPECT_TRUE(read_text_file(out / f) == read_text_file(committed / f))
        << "manifests/" << f << " differs from the chart: run scripts/render-manifests.sh and commit the result";
  }
  fs::remove_all(out);
}

TEST(Manifests, ChartCrdsAreTheRepositorysCrds) {
  const fs::path ours = fs::path(source_dir()) / "crds";
  const fs::path chart = fs::path(chart_dir()) / "crds";
  ASSERT_FALSE(yaml_files(ours).empty());
  EXPECT_EQ(yaml_files(chart), yaml_files(ours));
  for (const auto& f : yaml_files(ours)) {
    EXPECT_TRUE(read_text_file(chart / f) == read_text_file(ours / f))
        << "helm/gangplank/crds/" << f << " differs from crds/" << f << ": run scripts/render-manifests.sh";
  }
}

}  // namespace
}  // namespace gangplank::helm_testing

// The gangplank-operator binary's command line: --help that explains every knob with its environment
// variable, --version, bad flags refused with the flag named, and a clear error without a cluster.
#include <gtest/gtest.h>

#include "tests/support/subprocess.h"

namespace gangplank::op::testing {
namespace {

using gangplank::testing::run_process;

TEST(OperatorBinary, HelpExplainsEveryKnobAndBadFlagsAreRefused) {
  const auto help = run_process({GANGPLANK_OPERATOR_BINARY, "--help"});
  EXPECT_EQ(help.exit_code, 0);
  for (const char* expected : {"--webhook-tls-cert-file", "GANGPLANK_OPERATOR_WEBHOOK_TLS_CERT_FILE", "--leader-elect",
                               "--max-staleness-seconds", "--default-queue", "--scheduler-name", "dry-run", "--dry-run-auth",
                               "admits gangs of pods whole"}) {
    EXPECT_NE(help.out.find(expected), std::string::npos) << expected << " missing from --help:\n" << help.out;
  }
  const auto version = run_process({GANGPLANK_OPERATOR_BINARY, "--version"});
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_EQ(version.out.rfind("gangplank-operator 0.", 0), 0u) << version.out;
  const auto bad = run_process({GANGPLANK_OPERATOR_BINARY, "--workers", "0"});
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE((bad.out + bad.err).find("--workers"), std::string::npos) << bad.out << bad.err;
  const auto unknown = run_process({GANGPLANK_OPERATOR_BINARY, "--no-such-flag"});
  EXPECT_NE(unknown.exit_code, 0);
  EXPECT_NE((unknown.out + unknown.err).find("no-such-flag"), std::string::npos);
  const auto level = run_process({GANGPLANK_OPERATOR_BINARY, "--log-level", "loud"});
  EXPECT_NE(level.exit_code, 0);
  EXPECT_NE((level.out + level.err).find("--log-level"), std::string::npos);
  // No cluster to talk to: a clear error, exit 1.
  const auto missing = run_process({GANGPLANK_OPERATOR_BINARY, "--kubeconfig", "/nonexistent/kubeconfig"});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("/nonexistent/kubeconfig"), std::string::npos) << missing.err;
}

}  // namespace
}  // namespace gangplank::op::testing

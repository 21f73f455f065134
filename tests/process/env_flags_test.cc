// EnvFlags: every flag also read from <PREFIX><FLAG_IN_UPPER_SNAKE_CASE>, the command line winning, and
// --help naming the variable and the default.
#include "process/env_flags.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

namespace gangplank::process {
namespace {

// Sets an environment variable for the life of the object.
class ScopedEnv {
 public:
  ScopedEnv(std::string name, const std::string& value) : name_(std::move(name)) {
    ::setenv(name_.c_str(), value.c_str(), 1);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;
  ~ScopedEnv() { ::unsetenv(name_.c_str()); }

 private:
  std::string name_;
};

struct Settings {
  int port = 8080;
  std::string log_level = "info";
  bool verbose = false;
  bool leader_elect = true;
};

void Register(CLI::App& app, Settings& s) {
  EnvFlags flags(app, "GANGPLANK_TEST_");
  flags.Option("port", s.port, "Port to listen on");
  flags.Option("log-level", s.log_level, "Log level");
  flags.Switch("verbose", s.verbose, "Say more");
  flags.Switch("leader-elect", s.leader_elect, "Elect a leader", "no-leader-elect");
}

Settings Parse(std::vector<std::string> args) {
  CLI::App app;
  Settings s;
  Register(app, s);
  args.insert(args.begin(), "test");
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  app.parse(static_cast<int>(argv.size()), argv.data());
  return s;
}

TEST(EnvFlags, EnvNameIsThePrefixAndTheFlagInUpperSnakeCase) {
  CLI::App app;
  const EnvFlags flags(app, "GANGPLANK_EXTENDER_");
  EXPECT_EQ(flags.EnvName("max-body-bytes"), "GANGPLANK_EXTENDER_MAX_BODY_BYTES");
  EXPECT_EQ(flags.EnvName("port"), "GANGPLANK_EXTENDER_PORT");
}

TEST(EnvFlags, DefaultsStandWithNeitherFlagNorEnvironment) {
  const Settings s = Parse({});
  EXPECT_EQ(s.port, 8080);
  EXPECT_EQ(s.log_level, "info");
  EXPECT_FALSE(s.verbose);
  EXPECT_TRUE(s.leader_elect);
}

TEST(EnvFlags, TheEnvironmentFillsWhatTheCommandLineLeavesOut) {
  const ScopedEnv port("GANGPLANK_TEST_PORT", "9999");
  const ScopedEnv level("GANGPLANK_TEST_LOG_LEVEL", "debug");
  const ScopedEnv verbose("GANGPLANK_TEST_VERBOSE", "true");
  const ScopedEnv elect("GANGPLANK_TEST_LEADER_ELECT", "false");
  const Settings s = Parse({"--log-level", "warn"});
  EXPECT_EQ(s.port, 9999);
  EXPECT_EQ(s.log_level, "warn");  // The flag wins.
  EXPECT_TRUE(s.verbose);
  EXPECT_FALSE(s.leader_elect);
}

TEST(EnvFlags, SwitchesTakeTheirNegationAndAnExplicitValue) {
  EXPECT_FALSE(Parse({"--no-leader-elect"}).leader_elect);
  EXPECT_TRUE(Parse({"--verbose"}).verbose);
  EXPECT_FALSE(Parse({"--verbose=false"}).verbose);
}

TEST(EnvFlags, HelpNamesTheVariableAndTheDefault) {
  CLI::App app;
  Settings s;
  Register(app, s);
  const std::string help = app.help();
  for (const char* expected :
       {"--port", "GANGPLANK_TEST_PORT", "8080", "--no-leader-elect", "GANGPLANK_TEST_LEADER_ELECT"}) {
    EXPECT_NE(help.find(expected), std::string::npos) << expected << " missing from:\n" << help;
  }
}

}  // namespace
}  // namespace gangplank::process

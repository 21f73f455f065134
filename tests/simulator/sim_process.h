// Runs the built gangplank-sim binary (its path comes from the test target's GANGPLANK_SIM_BINARY) and collects its
// exit code and everything it printed, for the simulator's command-line tests.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace gangplank::simulator::sim_cli {

struct Outcome {
  int exit_code = -1;
  std::string output;  // stdout and stderr together.
};

inline Outcome RunSim(const std::string& args) {
  const std::string command = std::string(GANGPLANK_SIM_BINARY) + " " + args + " 2>&1";
  Outcome o;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return o;
  std::array<char, 4096> buffer{};
  size_t n = 0;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) o.output.append(buffer.data(), n);
  const int status = pclose(pipe);
  o.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return o;
}

}  // namespace gangplank::simulator::sim_cli

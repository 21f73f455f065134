// A binary started the way a pod starts its container: a command, its arguments and extra environment,
// stderr and stdout into a log file; stopped with SIGTERM as the kubelet stops it.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <utility>
#include <vector>

namespace gangplank::helm_testing {

class ChildProcess {
 public:
  ChildProcess(std::string path, std::vector<std::string> args, std::vector<std::pair<std::string, std::string>> env,
               std::string log_file);
  ~ChildProcess();  // SIGKILL if still running
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  bool running();
  // SIGTERM, then SIGKILL after `grace`; the exit code, or -1 when it had to be killed or died by a signal.
  int terminate(std::chrono::milliseconds grace = std::chrono::seconds(15));
  std::string log() const;

 private:
  pid_t pid_ = -1;
  int status_ = 0;
  bool reaped_ = false;
  std::string log_file_;
};

}  // namespace gangplank::helm_testing

// Runs a program (the real kubectl) with arguments, no shell, capturing its output.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace gangplank::testing {

struct ProcessResult {
  int exit_code = -1;  // -1 when killed by the timeout
  std::string out;
  std::string err;
};

// Runs to completion (killed after `timeout`), feeding `stdin_text`.
ProcessResult run_process(const std::vector<std::string>& argv, const std::string& stdin_text = "",
                          std::chrono::milliseconds timeout = std::chrono::seconds(30));

// A running process whose stdout is read line by line (e.g. `kubectl get --watch`). Killed on destruction.
class StreamingProcess {
 public:
  explicit StreamingProcess(const std::vector<std::string>& argv);
  ~StreamingProcess();
  StreamingProcess(const StreamingProcess&) = delete;
  StreamingProcess& operator=(const StreamingProcess&) = delete;
  std::optional<std::string> next_line(std::chrono::milliseconds timeout);
  // Everything it wrote to stderr so far (read after kill()).
  std::string kill_and_collect_stderr();
  // Sends SIGTERM and waits (SIGKILL after `grace`); returns the exit code, or -1 if it had to be killed.
  int terminate(std::chrono::milliseconds grace = std::chrono::seconds(10));

 private:
  pid_t pid_ = -1;
  int out_fd_ = -1;
  int err_fd_ = -1;
  std::string buffer_;
};

}  // namespace gangplank::testing

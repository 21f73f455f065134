// A program started by a test as a real process, its stdout and stderr appended to a log file that the
// test reads at any time (a pipe nobody drains would stall a chatty child). Stopped with SIGTERM (then
// SIGKILL) when the test says so or on destruction.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace gangplank::testing {

class ChildProcess {
 public:
  ChildProcess(const std::vector<std::string>& argv, std::string log_path) : log_path_(std::move(log_path)) {
    if (argv.empty() || ::access(argv[0].c_str(), X_OK) != 0) throw std::runtime_error("cannot execute " + argv.at(0));
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    pid_ = ::fork();
    if (pid_ < 0) throw std::runtime_error("fork failed");
    if (pid_ == 0) {
      const int log = ::open(log_path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
      ::dup2(log, 1);
      ::dup2(log, 2);
      ::execv(args[0], args.data());
      ::_exit(127);
    }
  }
  ~ChildProcess() { Stop(std::chrono::seconds(5)); }
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // SIGKILL at once (a crash, for recovery tests). The exit code is then -1.
  void Kill() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
    exit_code_ = -1;
  }
  bool Running() {
    if (pid_ <= 0) return false;
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == 0) return true;
    exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    pid_ = -1;
    return false;
  }

  // SIGTERM, then SIGKILL after `grace`. The exit code, or -1 when it had to be killed (or was already
  // reaped).
  int Stop(std::chrono::milliseconds grace = std::chrono::seconds(10)) {
    if (pid_ <= 0) return exit_code_;
    ::kill(pid_, SIGTERM);
    const auto deadline = std::chrono::steady_clock::now() + grace;
    int status = 0;
    pid_t done = 0;
    while ((done = ::waitpid(pid_, &status, WNOHANG)) == 0 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (done == 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, &status, 0);
      exit_code_ = -1;
    } else {
      exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }
    pid_ = -1;
    return exit_code_;
  }

  std::string Log() const {
    std::stringstream text;
    text << std::ifstream(log_path_).rdbuf();
    return text.str();
  }

 private:
  std::string log_path_;
  pid_t pid_ = -1;
  int exit_code_ = -1;
};

}  // namespace gangplank::testing

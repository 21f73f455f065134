#include "tests/helm/support/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <thread>


namespace gangplank::helm_testing {

ChildProcess::ChildProcess(std::string path, std::vector<std::string> args, std::vector<std::pair<std::string, std::string>> env,
                           std::string log_file)
    : log_file_(std::move(log_file)) {
  pid_ = ::fork();
  if (pid_ == 0) {
    const int fd = ::open(log_file_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      ::dup2(fd, STDOUT_FILENO);
      ::dup2(fd, STDERR_FILENO);
      ::close(fd);
    }
    for (const auto& [k, v] : env) ::setenv(k.c_str(), v.c_str(), 1);
    std::vector<char*> argv;
    argv.push_back(path.data());
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(path.c_str(), argv.data());
    ::_exit(127);
  }
}

ChildProcess::~ChildProcess() {
  if (pid_ > 0 && !reaped_) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, &status_, 0);
  }
}

bool ChildProcess::running() {
  if (pid_ <= 0 || reaped_) return false;
  if (::waitpid(pid_, &status_, WNOHANG) == pid_) reaped_ = true;
  return !reaped_;
}

int ChildProcess::terminate(std::chrono::milliseconds grace) {
  if (pid_ <= 0) return -1;
  if (!reaped_) {
    ::kill(pid_, SIGTERM);
    const auto deadline = std::chrono::steady_clock::now() + grace;
    while (!reaped_ && std::chrono::steady_clock::now() < deadline) {
      if (::waitpid(pid_, &status_, WNOHANG) == pid_) {
        reaped_ = true;
      } else {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
    }
    if (!reaped_) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, &status_, 0);
      reaped_ = true;
      return -1;
    }
  }
  return WIFEXITED(status_) ? WEXITSTATUS(status_) : -1;
}

std::string ChildProcess::log() const {
  std::ifstream in(log_file_);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace gangplank::helm_testing

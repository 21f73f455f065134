#include "tests/support/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <stdexcept>

namespace gangplank::testing {
namespace {

struct Pipe {
  int read = -1, write = -1;
  Pipe() {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe2 failed");
    read = fds[0];
    write = fds[1];
  }
};

pid_t spawn(const std::vector<std::string>& argv, Pipe& in, Pipe& out, Pipe& err) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    ::dup2(in.read, 0);
    ::dup2(out.write, 1);
    ::dup2(err.write, 2);
    ::execv(args[0], args.data());
    const char* msg = "exec failed\n";
    ::write(2, msg, std::strlen(msg));
    ::_exit(127);
  }
  ::close(in.read);
  ::close(out.write);
  ::close(err.write);
  return pid;
}

}  // namespace

ProcessResult run_process(const std::vector<std::string>& argv, const std::string& stdin_text,
                          std::chrono::milliseconds timeout) {
  if (argv.empty() || ::access(argv[0].c_str(), X_OK) != 0) {
    throw std::runtime_error("cannot execute '" + (argv.empty() ? std::string() : argv[0]) + "'");
  }
  Pipe in, out, err;
  const pid_t pid = spawn(argv, in, out, err);
  if (!stdin_text.empty()) {
    ssize_t ignored = ::write(in.write, stdin_text.data(), stdin_text.size());
    (void)ignored;
  }
  ::close(in.write);
  ProcessResult result;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  bool out_open = true, err_open = true, killed = false;
  char buf[65536];
  while (out_open || err_open) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) {
      ::kill(pid, SIGKILL);
      killed = true;
      break;
    }
    pollfd fds[2] = {{out_open ? out.read : -1, POLLIN, 0}, {err_open ? err.read : -1, POLLIN, 0}};
    if (::poll(fds, 2, static_cast<int>(left)) <= 0) continue;
    for (int i = 0; i < 2; ++i) {
      if (!(fds[i].revents & (POLLIN | POLLHUP))) continue;
      const ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n <= 0) {
        (i == 0 ? out_open : err_open) = false;
      } else {
        (i == 0 ? result.out : result.err).append(buf, static_cast<std::size_t>(n));
      }
    }
  }
  ::close(out.read);
  ::close(err.read);
  int status = 0;
  ::waitpid(pid, &status, 0);
  result.exit_code = killed ? -1 : (WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  return result;
}

StreamingProcess::StreamingProcess(const std::vector<std::string>& argv) {
  if (argv.empty() || ::access(argv[0].c_str(), X_OK) != 0) {
    throw std::runtime_error("cannot execute '" + (argv.empty() ? std::string() : argv[0]) + "'");
  }
  Pipe in, out, err;
  pid_ = spawn(argv, in, out, err);
  ::close(in.write);
  out_fd_ = out.read;
  err_fd_ = err.read;
}

StreamingProcess::~StreamingProcess() {
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  if (out_fd_ >= 0) ::close(out_fd_);
  if (err_fd_ >= 0) ::close(err_fd_);
}

std::optional<std::string> StreamingProcess::next_line(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  char buf[4096];
  while (true) {
    const auto nl = buffer_.find('\n');
    if (nl != std::string::npos) {
      std::string line = buffer_.substr(0, nl);
      buffer_.erase(0, nl + 1);
      return line;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    pollfd p{out_fd_, POLLIN, 0};
    if (left <= 0 || ::poll(&p, 1, static_cast<int>(left)) <= 0) return std::nullopt;
    const ssize_t n = ::read(out_fd_, buf, sizeof buf);
    if (n <= 0) return std::nullopt;
    buffer_.append(buf, static_cast<std::size_t>(n));
  }
}

int StreamingProcess::terminate(std::chrono::milliseconds grace) {
  if (pid_ <= 0) return -1;
  ::kill(pid_, SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + grace;
  int status = 0;
  while (::waitpid(pid_, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, &status, 0);
      pid_ = -1;
      return -1;
    }
    ::usleep(10000);
  }
  pid_ = -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string StreamingProcess::kill_and_collect_stderr() {
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }
  std::string err;
  char buf[4096];
  ssize_t n;
  while ((n = ::read(err_fd_, buf, sizeof buf)) > 0) err.append(buf, static_cast<std::size_t>(n));
  return err;
}

}  // namespace gangplank::testing

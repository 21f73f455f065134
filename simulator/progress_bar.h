// A one-line progress bar on stderr, drawn only when stderr is a terminal so logs and pipes stay clean.
#pragma once

#include <mutex>
#include <string>

namespace gangplank::simulator {

class ProgressBar {
 public:
  // `enabled` false draws nothing; the default asks isatty(stderr).
  explicit ProgressBar(std::string label, bool enabled = StderrIsTerminal());
  ~ProgressBar();  // Ends the line if anything was drawn.
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  void Update(int done, int total);  // Thread-safe.
  static bool StderrIsTerminal();

 private:
  std::string label_;
  bool enabled_;
  bool drawn_ = false;
  std::mutex mutex_;
};

}  // namespace gangplank::simulator

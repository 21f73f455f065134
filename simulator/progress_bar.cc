#include "simulator/progress_bar.h"

#include <unistd.h>

#include <cstdio>

namespace gangplank::simulator {

ProgressBar::ProgressBar(std::string label, bool enabled) : label_(std::move(label)), enabled_(enabled) {}

ProgressBar::~ProgressBar() {
  if (drawn_) std::fputc('\n', stderr);
}

bool ProgressBar::StderrIsTerminal() { return isatty(STDERR_FILENO) == 1; }

void ProgressBar::Update(int done, int total) {
  if (!enabled_ || total <= 0) return;
  std::lock_guard lock(mutex_);
  constexpr int kWidth = 40;
  const int filled = done * kWidth / total;
  std::string bar(static_cast<size_t>(filled), '#');
  bar.append(static_cast<size_t>(kWidth - filled), '.');
  std::fprintf(stderr, "\r%s [%s] %d/%d", label_.c_str(), bar.c_str(), done, total);
  std::fflush(stderr);
  drawn_ = true;
}

}  // namespace gangplank::simulator

// Splits a watch body into events. HTTP chunk boundaries are unrelated to event boundaries (one event
// may span chunks, one chunk may carry several), and the apiserver ends every event with '\n' (compact
// JSON escapes newlines inside strings), so buffering and splitting on '\n' is exact.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace gangplank::kube {

class LineFramer {
 public:
  // max_line_bytes bounds memory if a server never sends '\n'; exceeding it throws std::length_error.
  explicit LineFramer(size_t max_line_bytes = 64u << 20) : max_line_bytes_(max_line_bytes) {}

  // Appends bytes and calls on_line for each complete line (without '\n' or a trailing '\r';
  // blank lines are skipped).
  void feed(std::string_view bytes, const std::function<void(std::string_view)>& on_line);
  // Bytes of an incomplete trailing line held back.
  size_t pending() const { return buffer_.size(); }
  void Reset() { buffer_.clear(); }

 private:
  size_t max_line_bytes_;
  std::string buffer_;
};

}  // namespace gangplank::kube

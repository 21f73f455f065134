#include "kube/line_framer.h"

#include <stdexcept>

namespace gangplank::kube {

namespace {
void Emit(std::string_view line, const std::function<void(std::string_view)>& on_line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (!line.empty()) on_line(line);
}
}  // namespace

void LineFramer::feed(std::string_view bytes, const std::function<void(std::string_view)>& on_line) {
  while (!bytes.empty()) {
    size_t newline = bytes.find('\n');
    if (newline == std::string_view::npos) {
      if (buffer_.size() + bytes.size() > max_line_bytes_) {
        buffer_.clear();
        throw std::length_error("watch event longer than " + std::to_string(max_line_bytes_) + " bytes");
      }
      buffer_.append(bytes);
      return;
    }
    if (buffer_.empty()) {
      Emit(bytes.substr(0, newline), on_line);  // common case: no copy
    } else {
      buffer_.append(bytes.substr(0, newline));
      std::string line;
      line.swap(buffer_);
      Emit(line, on_line);
    }
    bytes.remove_prefix(newline + 1);
  }
}

}  // namespace gangplank::kube

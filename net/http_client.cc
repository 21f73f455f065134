// Implementation-independent pieces of the HTTP client interface.
#include "net/http_client.h"

#include <cctype>

namespace gangplank::net {

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  }
  return true;
}

std::optional<std::string> FindHeader(const HeaderList& headers, std::string_view name) {
  for (const auto& [key, value] : headers) {
    if (iequals(key, name)) return value;
  }
  return std::nullopt;
}

void CancelToken::cancel() {
  std::function<void()> action;
  {
    std::lock_guard lock(mutex_);
    cancelled_ = true;
    action = action_;
  }
  if (action) action();
}

void CancelToken::OnCancel(std::function<void()> action) {
  {
    std::lock_guard lock(mutex_);
    action_ = action;
    if (!cancelled_) return;
  }
  action();
}

void CancelToken::ClearOnCancel() {
  std::lock_guard lock(mutex_);
  action_ = nullptr;
}

}  // namespace gangplank::net

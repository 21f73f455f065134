#include "tests/support/fault_proxy/http_framing.h"

#include <algorithm>
#include <cctype>
#include <sstream>

namespace gangplank::testing::fault_proxy {
namespace {

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

}  // namespace

std::optional<std::string> RequestHead::Header(std::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (EqualsIgnoreCase(key, name)) return value;
  }
  return std::nullopt;
}

bool RequestHead::IsWatch() const {
  std::istringstream params(query);
  std::string param;
  while (std::getline(params, param, '&')) {
    if (param == "watch=1" || param == "watch=true") return true;
  }
  return false;
}

std::string RequestHead::ForUpstream() const {
  std::string out = method + " " + path + (query.empty() ? "" : "?" + query) + " HTTP/1.1\r\n";
  for (const auto& [key, value] : headers) {
    if (EqualsIgnoreCase(key, "Connection") || EqualsIgnoreCase(key, "Keep-Alive")) continue;
    out += key + ": " + value + "\r\n";
  }
  return out + "Connection: close\r\n\r\n";
}

std::optional<RequestHead> ParseRequestHead(std::string_view text) {
  std::size_t end = text.find("\r\n");
  if (end == std::string_view::npos) return std::nullopt;
  std::istringstream line{std::string(text.substr(0, end))};
  RequestHead head;
  std::string target;
  std::string version;
  if (!(line >> head.method >> target >> version) || !version.starts_with("HTTP/1.")) return std::nullopt;
  const std::size_t question = target.find('?');
  head.path = target.substr(0, question);
  if (question != std::string::npos) head.query = target.substr(question + 1);
  for (std::size_t start = end + 2; start < text.size();) {
    end = text.find("\r\n", start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view header = text.substr(start, end - start);
    start = end + 2;
    if (header.empty()) break;
    const std::size_t colon = header.find(':');
    if (colon == std::string_view::npos) return std::nullopt;
    head.headers.emplace_back(std::string(Trim(header.substr(0, colon))), std::string(Trim(header.substr(colon + 1))));
  }
  return head;
}

void ChunkTracker::Feed(std::string_view bytes) {
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    const char c = bytes[i];
    switch (state_) {
      case State::kSize:
        if (c != '\n') {
          line_ += c;
          break;
        }
        // "<hex size>[;extensions]\r": a size of 0 is the last chunk.
        remaining_ = std::stoul(line_.empty() ? std::string("0") : line_, nullptr, 16);
        line_.clear();
        state_ = remaining_ == 0 ? State::kTrailer : State::kData;
        break;
      case State::kData: {
        const std::size_t take = std::min(remaining_, bytes.size() - i);
        remaining_ -= take;
        i += take - 1;
        last_data_ = bytes[i];
        if (remaining_ == 0) state_ = State::kDataEnd;
        break;
      }
      case State::kDataEnd:  // The CRLF after a chunk's data.
        if (c == '\n') state_ = State::kSize;
        break;
      case State::kTrailer:
        if (c != '\n') {
          line_ += c;
          break;
        }
        if (line_.empty() || line_ == "\r") state_ = State::kDone;
        line_.clear();
        break;
      case State::kDone:
        return;
    }
  }
}

std::string ChunkOf(std::string_view data) {
  std::ostringstream size;
  size << std::hex << data.size();
  return size.str() + "\r\n" + std::string(data) + "\r\n";
}

}  // namespace gangplank::testing::fault_proxy

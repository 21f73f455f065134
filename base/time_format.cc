#include "base/time_format.h"

#include <charconv>
#include <cstdio>
#include <ctime>

namespace gangplank::base {
namespace {

std::tm ToUtc(SystemTime t) {
  std::time_t secs = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  return tm;
}

bool ReadInt(std::string_view s, size_t pos, size_t len, int& out) {
  if (pos + len > s.size()) return false;
  auto [ptr, ec] = std::from_chars(s.data() + pos, s.data() + pos + len, out);
  return ec == std::errc() && ptr == s.data() + pos + len;
}

}  // namespace

std::optional<double> ParseEpochSeconds(std::string_view text) {
  const std::optional<SystemTime> t = ParseTime(text);
  if (!t) return std::nullopt;
  return std::chrono::duration<double>(t->time_since_epoch()).count();
}

std::string FormatEpochSeconds(double seconds) {
  return FormatTime(SystemTime(std::chrono::duration_cast<SystemTime::duration>(std::chrono::duration<double>(seconds))));
}

std::string FormatTime(SystemTime t) {
  std::tm tm = ToUtc(t);
  char buf[96];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                tm.tm_hour, tm.tm_min, tm.tm_sec);
  return buf;
}

std::string FormatMicroTime(SystemTime t) {
  std::tm tm = ToUtc(t);
  auto micros = std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch()).count() % 1000000;
  if (micros < 0) micros += 1000000;
  char buf[96];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%06lldZ", tm.tm_year + 1900, tm.tm_mon + 1,
                tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<long long>(micros));
  return buf;
}

std::optional<SystemTime> ParseTime(std::string_view s) {
  int year, month, day, hour, minute, second;
  if (s.size() < 20 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != 't') || s[13] != ':' || s[16] != ':') {
    return std::nullopt;
  }
  if (!ReadInt(s, 0, 4, year) || !ReadInt(s, 5, 2, month) || !ReadInt(s, 8, 2, day) || !ReadInt(s, 11, 2, hour) ||
      !ReadInt(s, 14, 2, minute) || !ReadInt(s, 17, 2, second)) {
    return std::nullopt;
  }
  size_t pos = 19;
  long long micros = 0;
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    long long scale = 100000;
    size_t digits = 0;
    while (pos < s.size() && std::isdigit(static_cast<unsigned char>(s[pos]))) {
      micros += (s[pos] - '0') * scale;
      scale /= 10;
      ++pos;
      ++digits;
    }
    if (digits == 0) return std::nullopt;
  }
  int offset_minutes = 0;
  if (pos < s.size() && (s[pos] == 'Z' || s[pos] == 'z')) {
    ++pos;
  } else if (pos + 6 == s.size() && (s[pos] == '+' || s[pos] == '-') && s[pos + 3] == ':') {
    int oh, om;
    if (!ReadInt(s, pos + 1, 2, oh) || !ReadInt(s, pos + 4, 2, om)) return std::nullopt;
    offset_minutes = (s[pos] == '-' ? -1 : 1) * (oh * 60 + om);
    pos += 6;
  } else {
    return std::nullopt;
  }
  if (pos != s.size() || month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) {
    return std::nullopt;
  }
  using namespace std::chrono;
  year_month_day ymd{std::chrono::year(year), std::chrono::month(static_cast<unsigned>(month)),
                     std::chrono::day(static_cast<unsigned>(day))};
  if (!ymd.ok()) return std::nullopt;
  sys_days date = ymd;
  auto t = date + hours(hour) + minutes(minute) + seconds(second) + microseconds(micros) - minutes(offset_minutes);
  return time_point_cast<system_clock::duration>(t);
}

}  // namespace gangplank::base

// CPU time (user + system) of the whole process so far, server and client threads alike: the cost
// measure of the loopback HTTP benchmarks, because unlike wall time it does not grow when other
// processes on this shared machine take the cores.
#pragma once

#include <sys/resource.h>

namespace gangplank::bench {

inline double ProcessCpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6; };
  return seconds(u.ru_utime) + seconds(u.ru_stime);
}

}  // namespace gangplank::bench

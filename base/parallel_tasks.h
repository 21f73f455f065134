// Runs independent tasks (replays, API writes) on a few worker threads. Each task writes only its own
// slot of the caller's results, so the outcome does not depend on which thread ran what.
#pragma once

#include <cstddef>
#include <functional>

namespace gangplank::base {

// Calls task(i) once for every i in [0, total) on up to `threads` threads (at least one; one task, or
// one thread, runs on the caller's). An exception in any task stops handing out work and is rethrown
// here after every thread has stopped.
void RunTasks(std::size_t total, int threads, const std::function<void(std::size_t)>& task);

}  // namespace gangplank::base

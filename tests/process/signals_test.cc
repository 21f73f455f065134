// StopSignals: SIGTERM and SIGINT are taken by the waiting thread, threads started later have them
// blocked, and the waiting loop does its periodic work until one arrives. Each test blocks the signals in
// a thread of its own (a signal raised there is pending for that thread alone), never in the test runner's.
#include "process/signals.h"

#include <gtest/gtest.h>
#include <pthread.h>

#include <chrono>
#include <thread>

namespace gangplank::process {
namespace {

bool Blocked(int signal) {
  sigset_t current;
  pthread_sigmask(SIG_BLOCK, nullptr, &current);
  return sigismember(&current, signal) == 1;
}

TEST(StopSignals, WaitReturnsTheSignalTheThreadGot) {
  int got = 0;
  std::thread([&got] {
    const StopSignals stop;
    raise(SIGTERM);  // Pending: blocked in this thread.
    got = stop.Wait();
  }).join();
  EXPECT_EQ(got, SIGTERM);
}

TEST(StopSignals, ThreadsStartedAfterwardsHaveThemBlocked) {
  bool before = true;
  bool term = false;
  bool interrupt = false;
  std::thread([&] {
    before = Blocked(SIGTERM);
    const StopSignals stop;
    std::thread([&] {
      term = Blocked(SIGTERM);
      interrupt = Blocked(SIGINT);
    }).join();
  }).join();
  EXPECT_FALSE(before);
  EXPECT_TRUE(term);
  EXPECT_TRUE(interrupt);
  EXPECT_FALSE(Blocked(SIGTERM));  // The test runner's own thread is untouched.
}

TEST(StopSignals, PeriodicWorkRunsEachPeriodUntilASignal) {
  int ticks = 0;
  int got = 0;
  std::chrono::steady_clock::duration took{};
  std::thread([&] {
    const StopSignals stop;
    const auto start = std::chrono::steady_clock::now();
    // A period of 0 counts as one second, so the loop never spins.
    got = stop.Wait(std::chrono::seconds(0), [&ticks] {
      if (++ticks == 2) raise(SIGINT);
    });
    took = std::chrono::steady_clock::now() - start;
  }).join();
  EXPECT_EQ(got, SIGINT);
  EXPECT_EQ(ticks, 2);
  EXPECT_GE(took, std::chrono::milliseconds(1900));
}

TEST(StopSignals, APendingSignalEndsTheWaitBeforeAnyPeriodicWork) {
  int ticks = 0;
  int got = 0;
  std::thread([&] {
    const StopSignals stop;
    raise(SIGTERM);
    got = stop.Wait(std::chrono::seconds(30), [&ticks] { ++ticks; });
  }).join();
  EXPECT_EQ(got, SIGTERM);
  EXPECT_EQ(ticks, 0);
}

}  // namespace
}  // namespace gangplank::process

// Score scale shared by the baselines that mirror kube-scheduler score plugins, as the FGD paper's
// simulator ran them: every plugin returns an integer 0..100. The integer truncation is part of each
// baseline's behaviour: it decides which nodes tie, so the baselines keep it to reproduce the published
// numbers. How ties are broken is the caller's business: PlacePod draws at random (upstream
// kube-scheduler); the paper's simulator took the first node of a seeded random node order, which the
// openb replay reproduces (simulator/frag/node_order_placement.h) and which its published numbers need.
#pragma once

#include <cmath>
#include <cstdint>

namespace gangplank::engine::policies {

inline constexpr std::int64_t kMaxNodeScore = 100;
// The normalisation constants of the paper's simulator: the largest node in the openb trace.
inline constexpr double kMaxSpecCpuMilli = 128000;
inline constexpr double kMaxSpecGpuMilli = 8000;

// Go's int64(x) for the finite, modest values plugins produce: truncation toward zero.
inline double TruncateScore(double x) { return std::trunc(x); }

}  // namespace gangplank::engine::policies

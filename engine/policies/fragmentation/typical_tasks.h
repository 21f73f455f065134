// The workload model behind fragmentation-aware scoring (Weng et al., ATC '23): the trace's pods reduced
// to "typical" task types with frequencies. Types are the distinct (CPU, GPU count, GPU share, allowed
// models) requests, most popular first, kept until they cover `coverage` of the weight, then
// renormalised to sum to 1.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/request.h"

namespace gangplank::engine::policies {

struct TaskType {
  std::int64_t cpu_milli = 0;
  std::int64_t memory_mib = 0;  // Mean memory of the pods of this type (used only when asked to).
  int gpu_count = 0;
  MilliGpu gpu_milli = 0;
  std::vector<std::string> gpu_models;  // Sorted; empty means any model.
  double weight = 0;                    // Frequency, the types sum to 1.
};

enum class TaskWeighting {
  kPodCount,   // The paper: each pod counts once.
  kGpuDemand,  // Each pod counts by its GPU milli (CPU-only pods by a small floor), so big pods matter more.
};

struct TypicalTaskOptions {
  double coverage = 0.95;  // The paper's simulator on openb: popularity threshold 95%.
  TaskWeighting weighting = TaskWeighting::kPodCount;
  bool include_cpu_only = true;
  // With kPodCount: a pod of k whole GPUs counts 1 + k * whole_gpu_bonus times (the paper's simulator
  // calls this gpuResWeight; 0 there), so the rare large pods that waste the most when they fail weigh more.
  double whole_gpu_bonus = 0;
};

std::vector<TaskType> TypicalTasks(const std::vector<PodRequest>& pods, const TypicalTaskOptions& options = {});

}  // namespace gangplank::engine::policies

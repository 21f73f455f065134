// Reads the Alibaba openb GPU-cluster trace (node list and pod list CSVs) into engine types. Every bad
// value is an InputError naming file:line:column; nothing is silently defaulted.
#pragma once

#include <string>
#include <vector>

#include "engine/node.h"
#include "engine/request.h"
#include "simulator/csv_table.h"

namespace gangplank::simulator::openb {

struct OpenbPod {
  std::string name;
  engine::PodRequest request;
};

// Columns sn,cpu_milli,memory_mib,gpu,model. Unknown columns are rejected (a different file format).
std::vector<engine::NodeSpec> NodesFromTable(const CsvTable& table);
std::vector<engine::NodeSpec> LoadNodes(const std::string& path);

// Required columns name,cpu_milli,memory_mib,num_gpu,gpu_milli (a missing one is an InputError naming the
// file). gpu_spec is optional: "A|B" becomes the allowed models {A, B}; absent or empty, any model. Every
// other column (the trace's qos, pod_phase, creation_time, deletion_time, scheduled_time, or anything
// else) is ignored, so each layout of the paper's published pod lists loads.
std::vector<OpenbPod> PodsFromTable(const CsvTable& table);
std::vector<OpenbPod> LoadPods(const std::string& path);

}  // namespace gangplank::simulator::openb

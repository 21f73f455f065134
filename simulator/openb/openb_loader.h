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

// Columns name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec plus the trace's informational columns
// (qos, pod_phase, creation_time, deletion_time, scheduled_time), which are accepted and ignored.
// gpu_spec "A|B" becomes the allowed models {A, B}.
std::vector<OpenbPod> PodsFromTable(const CsvTable& table);
std::vector<OpenbPod> LoadPods(const std::string& path);

}  // namespace gangplank::simulator::openb

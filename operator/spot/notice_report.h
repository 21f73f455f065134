// Says what one sighting of a node's termination notice means: a metric, a log line and an Event on the
// Node when a notice starts, a warning Event for a notice whose time cannot be read. Only the leader
// records Events (`writer` null: log and count only).
#pragma once

#include <string>

#include "operator/metrics/operator_metrics.h"
#include "operator/spot/node_notices.h"
#include "operator/writer/cluster_writer.h"

namespace gangplank::op {

void ReportNotice(const cache::OwnerRef& node, const NodeNotices::Observation& seen, ClusterWriter* writer,
                  OperatorMetrics& metrics);

}  // namespace gangplank::op

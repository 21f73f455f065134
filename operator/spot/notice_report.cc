#include "operator/spot/notice_report.h"

#include <spdlog/spdlog.h>

#include "logging/json_log.h"
#include "operator/reasons.h"

namespace gangplank::op {

void ReportNotice(const cache::OwnerRef& node, const NodeNotices::Observation& seen, ClusterWriter* writer,
                  OperatorMetrics& metrics) {
  if (!seen.warning.empty()) {
    spdlog::warn(logging::JsonFields("ignored a termination notice", "node", node.name, "why", seen.warning));
    if (writer != nullptr) writer->RecordEvent({node, "", reasons::kWarning, reasons::kInvalidTerminateAt, seen.warning});
  }
  if (!seen.started) return;
  const NoticedNode& n = *seen.started;
  metrics.SpotNotice(n.notice.source);
  const std::string message = n.notice.signal + ": the node goes in about " +
                              std::to_string(static_cast<long long>(n.terminate_at - n.noticed_at)) +
                              " s; it takes no new gangs, and gangs on it are asked to checkpoint and requeued whole";
  spdlog::info(logging::JsonFields("termination notice", "node", node.name, "source", n.notice.source, "signal",
                                   n.notice.signal));
  if (writer != nullptr) writer->RecordEvent({node, "", reasons::kWarning, reasons::kTerminationNotice, message});
}

}  // namespace gangplank::op

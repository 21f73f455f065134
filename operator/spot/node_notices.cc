#include "operator/spot/node_notices.h"

#include "cache/objects/conventions.h"

namespace gangplank::op {

NodeNotices::Observation NodeNotices::Observe(const cache::NodeInfo& node, double now, bool known_spot) {
  const cache::NoticeReading reading = cache::ReadTerminationNotice(node, known_spot);
  Observation out;
  std::lock_guard lock(mu_);
  if (reading.warning.empty()) {
    warned_.erase(node.name);
  } else {
    const std::string value = node.annotations.at(std::string(cache::kTerminateAtAnnotation));
    auto [it, fresh] = warned_.emplace(node.name, value);
    if (fresh || it->second != value) out.warning = reading.warning;
    it->second = value;
  }
  auto before = notices_->find(node.name);
  const bool had = before != notices_->end();
  if (!reading.notice && !had) return out;
  auto next = std::make_shared<NoticeSnapshot>(*notices_);
  if (!reading.notice) {
    next->erase(node.name);
    out.changed = true;
  } else {
    NoticedNode entry;
    entry.notice = *reading.notice;
    entry.noticed_at = had ? before->second.noticed_at : now;
    entry.terminate_at = entry.notice.terminate_at.value_or(entry.noticed_at + entry.notice.lead_seconds);
    out.changed = !had || before->second.terminate_at != entry.terminate_at ||
                  before->second.notice.signal != entry.notice.signal;
    if (!had) out.started = entry;
    (*next)[node.name] = std::move(entry);
  }
  notices_ = std::move(next);
  return out;
}

bool NodeNotices::Remove(const std::string& node) {
  std::lock_guard lock(mu_);
  warned_.erase(node);
  if (notices_->count(node) == 0) return false;
  auto next = std::make_shared<NoticeSnapshot>(*notices_);
  next->erase(node);
  notices_ = std::move(next);
  return true;
}

std::shared_ptr<const NoticeSnapshot> NodeNotices::Snapshot() const {
  std::lock_guard lock(mu_);
  return notices_;
}

}  // namespace gangplank::op

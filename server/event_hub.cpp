#include "server/event_hub.h"

#include <algorithm>

namespace pz::server {
namespace {

constexpr std::size_t kMaxPending = 256;

}  // namespace

std::shared_ptr<EventHub::Subscription> EventHub::subscribe(const std::string& session) {
  auto subscription = std::make_shared<Subscription>();
  std::lock_guard lock(mutex_);
  subscribers_[session].push_back(subscription);
  return subscription;
}

void EventHub::unsubscribe(const std::string& session, const std::shared_ptr<Subscription>& subscription) {
  std::lock_guard lock(mutex_);
  auto it = subscribers_.find(session);
  if (it == subscribers_.end()) return;
  auto& list = it->second;
  list.erase(std::remove(list.begin(), list.end(), subscription), list.end());
  if (list.empty()) subscribers_.erase(it);
}

void EventHub::push(Subscription& subscription, const std::string& event, const std::string& data) {
  {
    std::lock_guard lock(subscription.mutex);
    if (subscription.pending.size() >= kMaxPending) subscription.pending.pop_front();
    subscription.pending.push_back("event: " + event + "\ndata: " + data + "\n\n");
  }
  subscription.ready.notify_one();
}

void EventHub::publish(const std::string& session, const std::string& event, const std::string& data) {
  std::lock_guard lock(mutex_);
  const auto it = subscribers_.find(session);
  if (it == subscribers_.end()) return;
  for (const auto& subscription : it->second) push(*subscription, event, data);
}

std::optional<std::string> EventHub::next(Subscription& subscription, std::chrono::milliseconds timeout) {
  std::unique_lock lock(subscription.mutex);
  subscription.ready.wait_for(lock, timeout, [&] { return subscription.closed || !subscription.pending.empty(); });
  if (subscription.closed || subscription.pending.empty()) return std::nullopt;
  std::string message = std::move(subscription.pending.front());
  subscription.pending.pop_front();
  return message;
}

void EventHub::close_all() {
  std::lock_guard lock(mutex_);
  for (auto& [session, list] : subscribers_) {
    for (auto& subscription : list) {
      {
        std::lock_guard sub_lock(subscription->mutex);
        subscription->closed = true;
      }
      subscription->ready.notify_all();
    }
  }
}

}  // namespace pz::server

#include "server/state_delivery.h"

#include <utility>

namespace antidrift {

void StateDelivery::addSink(std::string name, Sink sink) {
  std::lock_guard<std::mutex> lock(mutex_);
  sinks_.push_back(Named{std::move(name), std::move(sink)});
}

bool StateDelivery::deliver(const State& state) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (deliveredAny_ && state.version <= lastVersion_) {
    return false;  // late: every sink has this version or a newer one
  }
  deliveredAny_ = true;
  lastVersion_ = state.version;
  for (const Named& named : sinks_) {
    named.sink(state);
  }
  return true;
}

std::vector<std::string> StateDelivery::sinkNames() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::string> names;
  names.reserve(sinks_.size());
  for (const Named& named : sinks_) {
    names.push_back(named.name);
  }
  return names;
}

}  // namespace antidrift

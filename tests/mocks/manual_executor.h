/// @file manual_executor.h
/// An Executor for tests: tasks wait in a queue until the test runs them.
#pragma once

#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>

#include "antidrift/executor.h"

namespace antidrift::test {

/// Queues posted tasks; runOne()/runAll() run them on the calling thread.
/// post() is thread-safe.
class ManualExecutor final : public Executor {
 public:
  void post(std::function<void()> task) override {
    std::lock_guard<std::mutex> lock(mutex_);
    queue_.push_back(std::move(task));
  }
  /// Runs the oldest queued task; false when none was queued.
  bool runOne() {
    std::function<void()> task;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (queue_.empty()) return false;
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    task();
    return true;
  }
  /// Runs tasks (including ones they post) until the queue is empty; returns how many ran.
  std::size_t runAll() {
    std::size_t count = 0;
    while (runOne()) ++count;
    return count;
  }
  /// Drops every queued task without running it (a process that died with
  /// them); returns how many were dropped.
  std::size_t dropAll() {
    std::lock_guard<std::mutex> lock(mutex_);
    const std::size_t count = queue_.size();
    queue_.clear();
    return count;
  }
  /// Number of queued tasks.
  std::size_t pending() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return queue_.size();
  }

 private:
  mutable std::mutex mutex_;
  std::deque<std::function<void()>> queue_;
};

}  // namespace antidrift::test

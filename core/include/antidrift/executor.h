/// @file executor.h
/// The injected executor port (docs/DESIGN.md §1): all background work in the core is
/// posted to an Executor so tests can run it deterministically.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace antidrift {

/// Runs tasks somewhere else. Implementations must accept `post` from any
/// thread. A task must not throw; anything it throws is swallowed and logged.
class Executor {
 public:
  virtual ~Executor() = default;
  /// Queues `task` to run later on another thread (or when a test drains it).
  virtual void post(std::function<void()> task) = 0;
};

/// A fixed pool of worker threads, named "ad-exec-1" … "ad-exec-N" (thread_name.h). `shutdown()`
/// (or the destructor) stops accepting tasks, finishes the queued ones and joins every worker.
/// Thread-safe.
class ThreadExecutor final : public Executor {
 public:
  /// Starts `threads` workers (at least 1).
  explicit ThreadExecutor(unsigned threads);
  ~ThreadExecutor() override;
  ThreadExecutor(const ThreadExecutor&) = delete;
  ThreadExecutor& operator=(const ThreadExecutor&) = delete;

  void post(std::function<void()> task) override;
  /// Drains the queue and joins the workers. Idempotent; later posts are dropped.
  void shutdown();

 private:
  void run();

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> queue_;
  std::vector<std::thread> workers_;
  bool stopping_ = false;
};

}  // namespace antidrift

#include "antidrift/executor.h"

#include <exception>
#include <string>

#include <Poco/Logger.h>

#include "antidrift/thread_name.h"

namespace antidrift {

ThreadExecutor::ThreadExecutor(unsigned threads) {
  if (threads == 0) threads = 1;
  workers_.reserve(threads);
  for (unsigned i = 0; i < threads; ++i) {
    workers_.emplace_back([this, i] {
      setCurrentThreadName("ad-exec-" + std::to_string(i + 1));
      run();
    });
  }
}

ThreadExecutor::~ThreadExecutor() {
  shutdown();
}

void ThreadExecutor::post(std::function<void()> task) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_) return;
    queue_.push_back(std::move(task));
  }
  wake_.notify_one();
}

void ThreadExecutor::shutdown() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_ && workers_.empty()) return;
    stopping_ = true;
  }
  wake_.notify_all();
  for (auto& worker : workers_) {
    if (worker.joinable()) worker.join();
  }
  workers_.clear();
}

void ThreadExecutor::run() {
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping and drained
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    try {
      task();
    } catch (const std::exception& e) {
      Poco::Logger::get("antidrift.executor")
          .error("background task threw: %s", std::string(e.what()));
    } catch (...) {
      Poco::Logger::get("antidrift.executor")
          .error("background task threw a non-standard exception");
    }
  }
}

}  // namespace antidrift

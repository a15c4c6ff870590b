#include "antidrift/thread_name.h"

#include <pthread.h>

namespace antidrift {

void setCurrentThreadName(const std::string& name) {
  const std::string cut = name.substr(0, kMaxThreadNameBytes);
  static_cast<void>(pthread_setname_np(pthread_self(), cut.c_str()));
}

void setThreadName(std::thread& thread, const std::string& name) {
  const std::string cut = name.substr(0, kMaxThreadNameBytes);
  static_cast<void>(pthread_setname_np(thread.native_handle(), cut.c_str()));
}

std::string currentThreadName() {
  char buffer[kMaxThreadNameBytes + 1] = {};
  if (pthread_getname_np(pthread_self(), buffer, sizeof buffer) != 0) {
    return "";
  }
  return buffer;
}

}  // namespace antidrift

#include "antidrift/clock.h"

#include <chrono>

#include <time.h>

namespace antidrift {

std::int64_t SystemClock::nowUtcMs() const {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

std::int64_t SystemClock::monotonicMs() const {
  using namespace std::chrono;
  return duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count();
}

std::int64_t SystemClock::bootMs() const {
  timespec now{};
  if (clock_gettime(CLOCK_BOOTTIME, &now) != 0) return monotonicMs();
  return static_cast<std::int64_t>(now.tv_sec) * 1000 + now.tv_nsec / 1'000'000;
}

}  // namespace antidrift

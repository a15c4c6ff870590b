/// @file settings.h
/// The core's view of the configuration (DESIGN §12). The daemon reads the
/// properties file through Poco::Util and fills this plain struct, so the core
/// never links Poco::Util.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace antidrift {

/// Settings the core uses. Defaults are the built-in defaults of DESIGN §12.
struct Settings {
  /// evidence.heartbeat_s: a source re-emits the current window this often,
  /// seconds; health is "ok" while the last observation is < 3 × this old.
  std::int64_t heartbeatSecs = 10;
  /// evidence.idle_after_s: seconds without input before the person is away;
  /// also the largest gap between observations credited to a bucket.
  std::int64_t idleAfterSecs = 180;
  /// drift.allowed_apps: default allowed window classes for a new commitment.
  std::vector<std::string> defaultAllowedApps;
  /// ai.timeout_s: how long one AI call may take, seconds.
  std::int64_t aiTimeoutSecs = 30;
  /// knowledge.profile: path of the person's Markdown profile; "" = none.
  std::string profilePath;
  /// tasks.todo_txt: path of a todo.txt file; "" = none.
  std::string todoTxtPath;
};

}  // namespace antidrift

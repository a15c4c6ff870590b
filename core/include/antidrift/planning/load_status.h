/// @file load_status.h
/// Status of a planning grounding file (tasks, profile; docs/DESIGN.md §6).
#pragma once

#include <string_view>

namespace antidrift::planning {

/// Whether a grounding file was loaded.
enum class LoadStatus {
  None,   ///< no path configured, or the file is missing, unreadable or empty
  Ready,  ///< loaded
};

/// "none" | "ready" (the wire names of docs/DESIGN.md §6). Pure; thread-safe.
constexpr std::string_view toString(LoadStatus status) {
  return status == LoadStatus::Ready ? "ready" : "none";
}

}  // namespace antidrift::planning

/// @file duration.h
/// The one way AntiDrift writes a duration for a person (issue 17 item 1 of
/// the number walk): the review's carry-forward, the history and its export,
/// `antidrift status` and `antidrift history` all call these, so the same
/// drift reads the same everywhere. They match the page's www/js/format.js
/// (shortDuration, formatMinutes). Pure, thread-safe, never throw (but
/// std::bad_alloc).
#pragma once

#include <cstdint>
#include <string>

namespace antidrift::text {

/// Whole minutes, rounded half up: `secs` 0…29 → "0 min", 90 → "2 min"
/// (negative counts as 0). For planned and actual time ("Planned 6 min ·
/// actual 2 min") and the week's focused minutes.
std::string minutesText(std::int64_t secs);

/// "39 s" under a minute, else minutesText ("12 min"); negative counts as 0.
/// For a site's drift ("youtube 45 s over 4 visits") and the longest
/// on-task stretch (issue 17 item 5, re-walk).
std::string shortDurationText(std::int64_t secs);

/// "1 drift", "4 drifts": `count` and `noun`, with "s" appended unless
/// `count` is exactly 1 (the CLI's and the daemon's counts; issue 17 item 3
/// of the number walk). `noun` is an English singular taking a plain "s".
std::string countText(std::int64_t count, const std::string& noun);

}  // namespace antidrift::text

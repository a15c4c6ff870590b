/// @file controller_parts.h
/// The Controller's private parts, complete (issue 15 item 2): its Values
/// (session_values.h) and its verdict memory with the file (verdict_file.h),
/// for the files of the Controller's implementation — controller.cpp
/// (actions, evidence, time), controller_persist.cpp (snapshot writes and
/// announcements), controller_launch.cpp (the AI calls and file loads),
/// controller_restore.cpp (restore at start) and controller_state.cpp (the
/// State, the next wake, the history). Private to
/// core/src/session/.
#pragma once

#include "antidrift/session/controller.h"
#include "session/session_values.h"
#include "session/verdict_file.h"

namespace antidrift {

/// Everything an action may change (session::Values).
struct Controller::Values : session::Values {
  using session::Values::Values;
};

/// The verdict memory and its file (session::VerdictFile).
struct Controller::Verdicts : session::VerdictFile {
  using session::VerdictFile::VerdictFile;
};

}  // namespace antidrift

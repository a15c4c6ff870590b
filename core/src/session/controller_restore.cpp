// The Controller's restore at start (docs/DESIGN.md §9 "Restart"; issue 15
// item 2: one file per path of the Controller): the snapshot loaded, a
// session without its commitment dropped, a session in review that already
// ended before a crash closed, and an active session resumed on a new
// session clock or expired into review.
#include "antidrift/session/controller.h"

#include <algorithm>
#include <exception>

#include <Poco/Logger.h>

#include "session/controller_parts.h"

namespace antidrift {
namespace {

Poco::Logger& logger() {
  return Poco::Logger::get("antidrift.session");
}

}  // namespace

std::string Controller::restore() {
  std::unique_lock<ChangeLock> lock(changing_);
  const std::optional<Snapshot> snapshot = snapshots_.load();  // throws if unreadable
  if (!snapshot) {
    return "no snapshot found; starting locked";
  }
  session::restoreFrom(*snapshot, *v_);
  lockIfUncommittedLocked();
  std::string what = "restored " + std::string(toString(v_->runtime));
  if (v_->runtime == RuntimeState::Review) {
    if (std::optional<std::string> ended = resumeReviewLocked()) what = std::move(*ended);
  }
  if (v_->runtime == RuntimeState::Active) what = resumeActiveLocked();
  // A planning restored offers the recent sessions' apps again (issue 17, re-walk).
  if (v_->runtime == RuntimeState::Planning) gatherHistoryAppsLocked();
  publish(lock, Persist::Yes);
  return what;
}

void Controller::lockIfUncommittedLocked() {
  if ((v_->runtime == RuntimeState::Active || v_->runtime == RuntimeState::Review) &&
      !v_->session.commitment) {
    logger().warning("snapshot in %s without a commitment; starting locked",
                     std::string(toString(v_->runtime)));
    resetSessionLocked();
    v_->runtime = RuntimeState::Locked;
  }
}

std::optional<std::string> Controller::resumeReviewLocked() {
  try {
    if (auditHoldsLocked(v_->session.commitment->id)) {
      // Killed between the audit append and the snapshot write: it has ended.
      v_->review.keepCarryForward();
      resetSessionLocked();
      v_->runtime = RuntimeState::Locked;
      return "the session in review was already in the audit log (it ended before a crash); "
             "starting locked";
    }
  } catch (const std::exception& e) {
    logger().error("could not read the audit log; the session stays in review: %s",
                   std::string(e.what()));
  }
  if (v_->review.reflection.status == ReflectionStatus::Pending) {
    startReviewLocked();  // the call was lost with the old process; ask again
  }
  return std::nullopt;
}

std::string Controller::resumeActiveLocked() {
  const Commitment& commitment = *v_->session.commitment;
  const std::int64_t wallNow = clock_.nowUtcMs();
  // Never more than the session's own length, even if the wall clock went
  // back or the start lies ahead: a restored session always expires
  // (issue 19 item 6, review L6).
  const std::int64_t remainingMs = std::min(
      commitment.deadlineMs - wallNow, (commitment.timeboxSecs + commitment.extendedSecs) * 1000);
  v_->clock = session::SessionClock::resume(clock_, commitment.startedAtMs,
                                            v_->session.stats.stats().suspendedMs, remainingMs);
  if (remainingMs <= 0) {
    const std::int64_t deadlineMs = commitment.deadlineMs;
    enterReviewLocked(Outcome::Expired);
    v_->session.endedAtMs = deadlineMs;  // it ended at its deadline, while we were down
    return "the active session's deadline passed while the daemon was down; it expired into "
           "review";
  }
  evaluateDriftLocked();  // unknown until the next observation (evidence not ok yet)
  return "resumed the active session with " + std::to_string(remainingMs / 1000) + " s left";
}

}  // namespace antidrift

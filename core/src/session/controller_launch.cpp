// The Controller's AI calls and file loads (issue 15 item 2: one place for
// every launchGuarded of the Controller; docs/ARCHITECTURE.md "One judge
// verdict"): the todo.txt and profile loads of planning, the coach, the
// reviewer, the drift judge and the nudger. Each runs under the change lock,
// takes a token, and posts the work to the executor; the answer is applied
// under the change lock (both mutexes: it waits for an action's snapshot
// write) only while the token is current (async_slot.h), then its snapshot
// written, if any, and announced with no lock held.
#include "antidrift/session/controller.h"

#include <exception>

#include <Poco/Logger.h>

#include "session/controller_parts.h"

namespace antidrift {
namespace {

Poco::Logger& logger() {
  return Poco::Logger::get("antidrift.session");
}

using session::factsOf;

}  // namespace

void Controller::loadPlanningLocked() {
  const AsyncToken tasksToken = v_->planning.tasks.begin();
  const AsyncToken profileToken = v_->planning.profile.begin();
  const std::string todoPath = settings_.todoTxtPath;
  const std::string profilePath = settings_.profilePath;
  const auto applied = [this] { return changedLocked(Persist::No); };
  const auto notify = [this](const Change& change) { deliver(change); };
  launchGuarded(
      changing_, executor_, v_->planning.tasks, tasksToken,
      [todoPath] { return planning::loadTodoTxt(todoPath); }, applied, notify);
  launchGuarded(
      changing_, executor_, v_->planning.profile, profileToken,
      [profilePath] { return planning::loadProfile(profilePath); }, applied, notify);
}

void Controller::launchCoachLocked(AsyncToken token, const std::string& intent) {
  ai::CoachGrounding grounding;
  if (v_->planning.profile.value() &&
      v_->planning.profile.value()->status == planning::LoadStatus::Ready) {
    grounding.profile = v_->planning.profile.value()->text;
  }
  grounding.lastCarryForward = v_->review.lastCarryForward;
  std::shared_ptr<Backend> backend = backend_;
  const std::int64_t timeoutMs = settings_.aiTimeoutSecs * 1000;
  auto cost = std::make_shared<CallCost>();  // issue 18 item 4
  launchGuarded(
      changing_, executor_, v_->planning.coach, token,
      [backend, intent, grounding, timeoutMs, cost] {
        auto result = ai::coach(*backend, intent, grounding, timeoutMs, cost.get());
        if (!result) {
          logger().warning("coach failed: %s", result.error().message);
        }
        return result;
      },
      [this, cost] {
        addAiCostLocked("coach", *cost);
        return changedLocked(Persist::No);
      },
      [this](const Change& change) { deliver(change); });
}

void Controller::startReviewLocked() {
  // The no-AI carry-forward (issue 17 item 5): the answer, the note and where
  // the drift went, so the next Planning still says something without the AI.
  v_->review.fallback =
      ai::fallbackCarryForward(factsOf(session::summaryOf(v_->session, v_->review)));
  if (!backend_) {
    v_->review.reviewer.reset();
    v_->review.reflection = ReflectionRecord{ReflectionStatus::Absent, "", ""};
    if (!v_->review.fallback.empty()) v_->review.lastCarryForward = v_->review.fallback;
    return;
  }
  v_->review.reviewerToken = v_->review.reviewer.begin();
  // A re-run (the person answered the review) keeps the recap it had until
  // the new one arrives, so an End in between still records it.
  v_->review.reflection = ReflectionRecord{ReflectionStatus::Pending, v_->review.reflection.recap,
                                           v_->review.reflection.carryForward};
  const std::int64_t timeoutMs = settings_.aiTimeoutSecs * 1000;
  v_->review.giveUpMono = clock_.monotonicMs() + timeoutMs + kReviewerGraceMs;
  std::shared_ptr<Backend> backend = backend_;
  AuditSink& audit = audit_;
  // The session is not in the audit log yet (End appends it): no double count.
  const std::string finished =
      ai::describeSession(factsOf(session::summaryOf(v_->session, v_->review)));
  auto cost = std::make_shared<CallCost>();  // issue 18 item 4
  launchGuarded(
      changing_, executor_, v_->review.reviewer, v_->review.reviewerToken,
      [backend, &audit, finished, timeoutMs, cost] {
        std::vector<ai::SessionFacts> prior;
        try {
          for (const SessionSummary& summary : audit.recent(ai::kReviewerHistorySessions)) {
            prior.push_back(factsOf(summary));
          }
        } catch (const std::exception& e) {
          logger().warning("reviewer: no history (%s)", std::string(e.what()));
        }
        auto result =
            ai::tryReview(*backend, finished, ai::describeHistory(prior), timeoutMs, cost.get());
        if (!result) logger().warning("reviewer failed: %s", result.error().message);
        return result;
      },
      [this, cost] {
        addAiCostLocked("reviewer", *cost);
        v_->review.applyReviewer(v_->runtime == RuntimeState::Review);
        return changedLocked(Persist::Yes);
      },
      [this](const Change& change) { deliver(change); });
}

void Controller::launchJudgeLocked(drift::JudgeRequest request) {
  std::shared_ptr<Backend> backend = backend_;
  const std::int64_t timeoutMs = settings_.aiTimeoutSecs * 1000;
  auto cost = std::make_shared<CallCost>();  // issue 18 item 4
  launchGuarded(
      changing_, executor_, v_->session.engine.judgeEpoch(), request.token,
      [backend, input = std::move(request.input), timeoutMs, cost] {
        return ai::judge(*backend, input, timeoutMs, cost.get());
      },
      [this, key = request.key,
       cost](std::optional<ai::Expected<ai::Verdict>>&& result) -> std::optional<Change> {
        addAiCostLocked("judge", *cost);
        std::optional<ai::Verdict> verdict;
        std::string failure = std::string(kAsyncWorkFailed);
        if (result && result->hasValue()) {
          verdict = result->value();
        } else if (result) {
          failure = result->error().message;
        }
        // A backend's error may quote the prompt: a private window's title.
        if (!verdict && drift::Engine::isPrivateKey(key)) {
          logger().warning("drift judge failed on a private window (its error is not logged)");
        } else if (!verdict) {
          logger().warning("drift judge failed: %s", failure);
        }
        if (v_->runtime != RuntimeState::Active) return std::nullopt;
        drift::Decision applied =
            v_->session.applyVerdict(key, verdict, failure, sessionNowLocked());
        const bool statsMoved = applied.episodeStarted || applied.driftMs > 0;
        applyDriftLocked(applied);
        // A verdict remembered about a window no longer in front still has to be written.
        if (!applied.changed && !statsMoved && !verdicts_->unsaved()) return std::nullopt;
        return changedLocked(statsMoved ? Persist::Yes : Persist::No);
      },
      [this](const Change& change) { deliver(change); });
}

void Controller::launchNudgeLocked(drift::NudgeRequest request) {
  std::shared_ptr<Backend> backend = backend_;
  const std::int64_t timeoutMs = settings_.aiTimeoutSecs * 1000;
  auto cost = std::make_shared<CallCost>();  // issue 18 item 4
  launchGuarded(
      changing_, executor_, v_->session.engine.nudgeEpoch(), request.token,
      [backend, input = std::move(request.input), timeoutMs, cost] {
        return ai::nudge(*backend, input, timeoutMs, cost.get());
      },
      [this, cost](std::optional<ai::Expected<std::string>>&& result) -> std::optional<Change> {
        addAiCostLocked("nudge", *cost);
        std::optional<std::string> message;
        if (result && result->hasValue()) {
          message = result->value();
        } else {
          // Seed 000: an error leaves the advisory as it was; never fabricated.
          logger().warning("nudge failed: %s",
                           result ? result->error().message : std::string(kAsyncWorkFailed));
        }
        if (v_->runtime != RuntimeState::Active ||
            !v_->session.answerNudge(message, sessionNowLocked(), currentAppLocked(),
                                     v_->evidence.away)) {
          return std::nullopt;
        }
        return changedLocked(Persist::No);
      },
      [this](const Change& change) { deliver(change); });
}

}  // namespace antidrift

// The tiers of the drift floor (docs/DESIGN.md §4 "The tiers"), each one
// decision; their order is kTiers in tiers.h and drift::Engine applies them.
#include "antidrift/drift/tiers.h"

#include <algorithm>

#include "antidrift/drift/title_normalizer.h"
#include "antidrift/text/normalize.h"

namespace antidrift::drift {

namespace {

/// The longest judge reason shown, in code points (docs/DESIGN.md §4 step 4).
constexpr std::size_t kShownReasonChars = 160;

bool contains(const std::vector<std::string>& list, const std::string& value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

Verdict about(const TierInput& in, DriftStatus status, std::string reason) {
  Verdict verdict;
  verdict.status = status;
  verdict.reason = std::move(reason);
  verdict.app = in.obs.app;
  return verdict;
}

Verdict recall(const TierInput& in, const Remembered& known) {
  Verdict verdict = about(in, known.verdict->onTask ? DriftStatus::OnTask : DriftStatus::Drifting,
                          rememberedReason(*known.verdict, in.obs.app));
  verdict.cache = true;
  verdict.memoryKey = known.key;
  return verdict;
}

/// The heads-up of a private window no local tier decided.
std::string privateWindowQuestion(const TierInput& in) {
  return "A private window \u2014 is it for \u201C" + in.commitment.nextAction + "\u201D?";
}

/// The judge may read the window and its key has not failed for good: it
/// decides an ambiguous page (one failure allows one retry after retryAtMs).
bool judgeCanDecide(const TierInput& in) {
  if (!judgeMayRead(in.advisors, in.state.rules, in.obs)) return false;
  const auto asked = in.state.attempted.find(*in.key);
  const bool failed = asked != in.state.attempted.end() && asked->second.failures > 0 &&
                      !(asked->second.failures == 1 && in.obs.atMs >= asked->second.retryAtMs);
  return !failed;
}

bool yourMark(const Remembered& known) {
  return known.verdict && known.verdict->source == VerdictSource::You;
}

}  // namespace

bool judgeMayRead(Advisors advisors, const Rules& rules, const Observation& obs) {
  if (advisors == Advisors::None || rules.neverSend(obs.app)) return false;
  if (obs.title != kPrivateWindowTitle) return true;
  return advisors == Advisors::LocalJudgeAndNudge && !obs.localTitle.empty();
}

std::string judgeReason(std::string_view reason) {
  // One line of valid UTF-8 without zero-width or bidi characters, cut at a
  // code point, with no '"' that could close the label's quotes.
  std::string clean = text::normalizeUnicode(reason);
  for (char& c : clean) {
    if (c == '"') c = '\'';
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  }
  std::size_t points = 0;
  for (std::size_t i = 0; i < clean.size(); ++i) {
    if ((static_cast<unsigned char>(clean[i]) & 0xC0) == 0x80) continue;
    if (++points > kShownReasonChars) {
      clean.resize(i);
      clean += "\xE2\x80\xA6";  // …
      break;
    }
  }
  return std::string(kJudgeLabel) + "\"" + clean + "\"";
}

std::string rememberedReason(const RememberedVerdict& known, const std::string& app) {
  const std::string said = known.reason.empty()                   ? app + " fits the commitment"
                           : known.source == VerdictSource::Judge ? judgeReason(known.reason)
                                                                  : known.reason;
  return "remembered: " + said;
}

std::string_view toString(DriftStatus status) {
  switch (status) {
    case DriftStatus::Inactive:
      return "";
    case DriftStatus::OnTask:
      return "ontask";
    case DriftStatus::Judging:
      return "judging";
    case DriftStatus::Drifting:
      return "drifting";
    case DriftStatus::Unknown:
      return "unknown";
  }
  return "";
}

namespace tiers {

std::optional<Verdict> unreadable(const TierInput& in) {
  if (in.kind != WindowKind::Unreadable && in.kind != WindowKind::LockScreen) return std::nullopt;
  Verdict verdict;
  verdict.status = DriftStatus::Unknown;
  verdict.reason = std::string(kWindowUnknownReason);
  verdict.subject = Verdict::Subject::Keep;
  return verdict;
}

std::optional<Verdict> hardRules(const TierInput& in) {
  if (!in.blocked) return std::nullopt;
  Verdict verdict = about(in, DriftStatus::Drifting, *in.blocked);
  verdict.blocked = true;
  return verdict;
}

std::optional<Verdict> ownPage(const TierInput& in) {
  if (in.kind != WindowKind::OwnPage) return std::nullopt;
  // The person looks at AntiDrift itself (e.g. to press a banner button):
  // neither focus nor drift. The banner stays where it is; any other verdict
  // was the previous window's, so the view says where they are and the time
  // is neutral, never on task.
  Verdict verdict;
  verdict.status = DriftStatus::Unknown;
  verdict.reason = std::string(kOwnPageReason);
  verdict.subject = Verdict::Subject::Keep;
  verdict.keepView = in.state.viewStatus == DriftStatus::Drifting;
  return verdict;
}

std::optional<Verdict> localMatch(const TierInput& in) {
  const Commitment& commitment = in.commitment;
  const Observation& obs = in.obs;
  std::optional<std::string> why;
  if (contains(commitment.allowedApps, obs.app)) {
    why = obs.app + " is an allowed app";
  } else if (in.perPage && !commitment.allowedTitles.empty() &&
             std::any_of(commitment.allowedTitles.begin(), commitment.allowedTitles.end(),
                         [&](const AllowedTitle& allowed) {
                           return allowed.app == obs.app && allowed.title == in.normalizedTitle();
                         })) {
    why = "you marked this page on task";
  } else if (in.perPage && !commitment.allowedSites.empty()) {
    const VerdictKeyView site = describeVerdictKey(markSiteKey(in.state.rules, obs));
    if (site.kind == "site") {
      const bool domain = !obs.domain.empty();
      for (const AllowedSite& allowed : commitment.allowedSites) {
        if (allowed.app == obs.app && allowed.domain == domain && allowed.site == site.label) {
          why = "you marked all of " + allowed.site + " on task this session";
          break;
        }
      }
    }
  }
  if (!why) return std::nullopt;
  Verdict verdict = about(in, DriftStatus::OnTask, std::move(*why));
  verdict.subject = Verdict::Subject::Forget;
  if (!in.state.workspace.empty() && contains(commitment.allowedApps, obs.app)) {
    const std::string workspace = editorWorkspace(obs.title);
    if (!workspace.empty() && workspace != in.state.workspace) {
      verdict.nudge = "Another project: " + workspace + " (this session works in " +
                      in.state.workspace + "). Is it for \u201C" + commitment.nextAction +
                      "\u201D?";
    }
  }
  return verdict;
}

std::optional<Verdict> sessionCache(const TierInput& in) {
  if (in.privateWindow) return std::nullopt;  // one key for every private window: never cached
  const CachedVerdict* cached = in.state.cache.find(*in.key);
  if (cached == nullptr) return std::nullopt;
  Verdict verdict =
      about(in, cached->onTask ? DriftStatus::OnTask : DriftStatus::Drifting, cached->reason);
  verdict.memoryKey = cached->memoryKey;
  return verdict;
}

std::optional<Verdict> yourMarks(const TierInput& in) {
  const Remembered& known = in.remembered();
  if (!yourMark(known)) return std::nullopt;
  // An on-mark beats a known distraction, an off-mark (Back to task) beats
  // relevance. An off-mark that a known distraction agrees with corrected
  // nothing, so the distraction decides and its reason is shown.
  if (!known.verdict->onTask && in.local().kind == LocalFinding::Kind::Distraction) {
    return std::nullopt;
  }
  return recall(in, known);
}

std::optional<Verdict> relevance(const TierInput& in) {
  const LocalFinding& local = in.local();
  if (local.kind != LocalFinding::Kind::Relevant) return std::nullopt;
  // A known distraction's page about the task is the judge's to decide, when
  // there is one to ask; its words rescue it only without one.
  if (local.distraction && judgeCanDecide(in)) return std::nullopt;
  if (in.privateWindow) {  // its words are its title's: unsaid
    return about(in, DriftStatus::OnTask,
                 "a private window whose title shares your commitment's words");
  }
  std::string reason = "its title shares your commitment's words: ";
  for (std::size_t i = 0; i < local.shared.size() && i < 4; ++i) {
    reason += (i == 0 ? "" : ", ") + local.shared[i];
  }
  Verdict verdict = about(in, DriftStatus::OnTask, std::move(reason));
  verdict.cache = true;
  return verdict;
}

std::optional<Verdict> knownDistractions(const TierInput& in) {
  const LocalFinding& local = in.local();
  if (local.kind != LocalFinding::Kind::Distraction) return std::nullopt;
  const DistractionMatch& match = *local.distraction;
  if (in.privateWindow) {  // the site is the window's secret; its category is not
    Verdict verdict = about(in, DriftStatus::Drifting,
                            "a private window shows a known distraction (" + match.category + ")");
    return verdict;
  }
  std::string reason = match.site + " is a known distraction (" + match.category + ")";
  if (match.how.find(match.site) == std::string::npos) reason += ": " + match.how;
  Verdict verdict = about(in, DriftStatus::Drifting, std::move(reason));
  verdict.cache = true;
  return verdict;
}

std::optional<Verdict> siteVerdict(const TierInput& in) {
  if (in.siteKey->empty()) return std::nullopt;
  const CachedVerdict* site = in.state.cache.find(*in.siteKey);
  if (site == nullptr) return std::nullopt;
  return about(in, site->onTask ? DriftStatus::OnTask : DriftStatus::Drifting, site->reason);
}

std::optional<Verdict> rememberedJudge(const TierInput& in) {
  const Remembered& known = in.remembered();
  if (!known.verdict) return std::nullopt;
  return recall(in, known);
}

std::optional<Verdict> taskDistraction(const TierInput& in) {
  const LocalFinding& local = in.local();
  if (local.kind != LocalFinding::Kind::TaskDistraction) return std::nullopt;
  if (judgeCanDecide(in)) return std::nullopt;  // the judge decides it
  if (in.privateWindow) {
    Verdict verdict = about(in, DriftStatus::Unknown,
                            "a private window shows a known distraction, but its title shares your "
                            "commitment's words");
    verdict.nudge = privateWindowQuestion(in);
    return verdict;
  }
  const DistractionMatch& match = *local.distraction;
  std::string words;
  for (std::size_t i = 0; i < local.shared.size() && i < 3; ++i) {
    words += (i == 0 ? "" : ", ") + local.shared[i];
  }
  Verdict verdict = about(in, DriftStatus::Unknown,
                          match.site +
                              " is a known distraction, but this page shares your "
                              "commitment's words: " +
                              words);
  verdict.nudge = "Is this " + match.site + " page for \u201C" + in.commitment.nextAction +
                  "\u201D? It is a known distraction; its title shares " + words + ".";
  return verdict;
}

std::optional<Verdict> cannotSend(const TierInput& in) {
  const std::string& app = in.obs.app;
  const bool judgeable = judgeMayRead(in.advisors, in.state.rules, in.obs);
  if (in.privateWindow && !judgeable) {
    // Its title never leaves memory: nothing to send. No local tier decided,
    // so with drift.private_windows = ask the heads-up asks the person.
    Verdict verdict =
        about(in, DriftStatus::Unknown, "a private window is judged by local rules only");
    if (in.state.rules.privateWindows() == Settings::PrivateWindows::Ask) {
      verdict.nudge = privateWindowQuestion(in);
    }
    return verdict;
  }
  if (in.state.rules.neverSend(app)) {
    return about(in, DriftStatus::Unknown,
                 app + " is judged by local rules only (privacy.never_send_apps)");
  }
  if (in.advisors == Advisors::None) {
    return about(in, DriftStatus::Unknown, app + " is not in the allowed apps (AI is off)");
  }
  const auto asked = in.state.attempted.find(*in.key);
  if (asked == in.state.attempted.end() || in.state.inFlight.count(*in.key) != 0) {
    return std::nullopt;
  }
  // Answered, yet nothing kept it (a private window's verdict is never
  // cached): asked again. Asked and it failed: once more on a visit after
  // the retry time, then never again this session.
  const JudgeAttempt& attempt = asked->second;
  if (attempt.failures == 0) return std::nullopt;
  if (attempt.failures == 1 && in.obs.atMs >= attempt.retryAtMs) return std::nullopt;
  return about(in, DriftStatus::Unknown,
               "the AI judge could not say whether " + app + " fits the commitment" +
                   (attempt.failures == 1 ? " (it asks once more later)" : ""));
}

std::optional<Verdict> judge(const TierInput& in) {
  Verdict verdict =
      about(in, DriftStatus::Judging, "checking whether " + in.obs.app + " fits the commitment");
  verdict.judge = true;
  return verdict;
}

}  // namespace tiers

}  // namespace antidrift::drift

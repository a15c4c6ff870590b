#include "antidrift/session/state.h"
#include "antidrift/store/ai_cost_json.h"

#include <algorithm>

#include <Poco/JSON/Array.h>

namespace antidrift {

std::string toString(Health health) {
  switch (health) {
    case Health::Ok:
      return "ok";
    case Health::Stale:
      return "stale";
    case Health::Unavailable:
      return "unavailable";
  }
  return "unavailable";
}

namespace {

Poco::JSON::Object::Ptr commitmentJson(const Commitment& commitment, std::int64_t remainingSecs) {
  Poco::JSON::Object::Ptr json = new Poco::JSON::Object;
  json->set("id", commitment.id);
  json->set("next_action", commitment.nextAction);
  json->set("success_condition", commitment.successCondition);
  json->set("timebox_secs", commitment.timeboxSecs);
  json->set("extended_secs", commitment.extendedSecs);
  json->set("started_at", commitment.startedAtMs);
  json->set("deadline", commitment.deadlineMs);
  json->set("remaining_secs", remainingSecs);
  Poco::JSON::Array::Ptr apps = new Poco::JSON::Array;
  for (const auto& app : commitment.allowedApps) apps->add(app);
  json->set("allowed_apps", apps);
  Poco::JSON::Array::Ptr titles = new Poco::JSON::Array;
  for (const auto& allowed : commitment.allowedTitles) {
    Poco::JSON::Object::Ptr title = new Poco::JSON::Object;
    title->set("app", allowed.app);
    title->set("title", allowed.title);
    titles->add(title);
  }
  json->set("allowed_titles", titles);
  Poco::JSON::Array::Ptr sites = new Poco::JSON::Array;  // issue 17 item 4
  for (const auto& allowed : commitment.allowedSites) {
    Poco::JSON::Object::Ptr site = new Poco::JSON::Object;
    site->set("app", allowed.app);
    site->set("site", allowed.site);
    site->set("domain", allowed.domain);
    sites->add(site);
  }
  json->set("allowed_sites", sites);
  return json;
}

Poco::JSON::Object::Ptr statsJson(const SessionStats& stats,
                                  const std::map<std::string, AppSplit>& split) {
  Poco::JSON::Object::Ptr json = new Poco::JSON::Object;
  Poco::JSON::Array::Ptr buckets = new Poco::JSON::Array;
  for (const auto& [app, secs] : stats.topBucketsSecs(stats.bucketsMs.size())) {
    Poco::JSON::Object::Ptr bucket = new Poco::JSON::Object;
    bucket->set("app", app);
    bucket->set("secs", secs);
    // The timeline counts gaps the buckets cap (evidence.idle_after_s): the
    // split never claims more than the bucket holds.
    const auto it = split.find(app);
    const std::int64_t onTask =
        it == split.end() ? 0 : std::min<std::int64_t>(it->second.onTaskMs / 1000, secs);
    const std::int64_t drifting =
        it == split.end() ? 0 : std::min<std::int64_t>(it->second.driftingMs / 1000, secs - onTask);
    bucket->set("ontask_secs", onTask);
    bucket->set("drifting_secs", drifting);
    buckets->add(bucket);
  }
  json->set("buckets", buckets);
  json->set("switches", stats.switches);
  json->set("drift_episodes", stats.driftEpisodes);
  json->set("drift_secs", stats.driftMs / 1000);
  json->set("away_secs", stats.awayMs / 1000);
  json->set("suspended_secs", stats.suspendedMs / 1000);
  json->set("corrections", stats.corrections);
  Poco::JSON::Object::Ptr aiCalls = new Poco::JSON::Object;
  for (const char* role : {"coach", "judge", "nudge", "reviewer"}) {
    const auto it = stats.aiCalls.find(role);
    aiCalls->set(role, it == stats.aiCalls.end() ? std::int64_t{0} : it->second);
  }
  json->set("ai_calls", aiCalls);
  json->set("ai_cost", aiCostToJson(stats.aiCost));  // issue 18 item 4
  return json;
}

}  // namespace

Poco::JSON::Array::Ptr timelineJson(const std::vector<TimelineSpan>& spans) {
  Poco::JSON::Array::Ptr array = new Poco::JSON::Array;
  for (const TimelineSpan& span : spans) {
    Poco::JSON::Object::Ptr item = new Poco::JSON::Object;
    item->set("start", span.startMs);
    item->set("end", span.endMs);
    item->set("app", span.app);
    item->set("status", std::string(toString(span.status)));
    item->set("heads_up", span.headsUp);
    array->add(item);
  }
  return array;
}

Poco::JSON::Array::Ptr driftBySiteJson(const std::vector<SiteDrift>& sites) {
  Poco::JSON::Array::Ptr array = new Poco::JSON::Array;
  for (const SiteDrift& site : sites) {
    Poco::JSON::Object::Ptr item = new Poco::JSON::Object;
    item->set("where", site.where);
    item->set("drift_secs", site.driftMs / 1000);
    item->set("visits", site.visits);
    array->add(item);
  }
  return array;
}

Poco::JSON::Object::Ptr stretchJson(const OnTaskStretch& stretch) {
  Poco::JSON::Object::Ptr json = new Poco::JSON::Object;
  json->set("secs", stretch.onTaskMs / 1000);
  json->set("start", stretch.startMs);
  json->set("end", stretch.endMs);
  return json;
}

Poco::JSON::Object::Ptr toJson(const State& state) {
  Poco::JSON::Object::Ptr json = new Poco::JSON::Object;
  json->set("version", state.version);
  json->set("now", state.nowMs);
  json->set("runtime", toString(state.runtime));
  const bool inSession =
      state.runtime == RuntimeState::Active || state.runtime == RuntimeState::Review;
  if (inSession && state.commitment) {
    json->set("commitment", commitmentJson(*state.commitment, state.remainingSecs));
    json->set("stats", statsJson(state.stats, state.appSplit));
  }
  // Up to 200 spans, shown on Review only: while active it would be most of
  // every push to every stream (issue 8 item 2; docs/API.md §5).
  if (state.runtime == RuntimeState::Review && state.commitment) {
    json->set("timeline", timelineJson(state.timeline));
  }
  if (state.runtime == RuntimeState::Review) {
    json->set("outcome", toString(state.outcome));
    json->set("ended_at", state.endedAtMs);
    Poco::JSON::Object::Ptr reflection = new Poco::JSON::Object;
    reflection->set("status", state.reflection.status);
    reflection->set("recap", state.reflection.recap);
    reflection->set("carry_forward", state.reflection.carryForward);
    json->set("reflection", reflection);
    Poco::JSON::Object::Ptr review = new Poco::JSON::Object;
    review->set("success", state.review.success);
    review->set("note", state.review.note);
    json->set("review", review);
    if (state.focus) {  // issue 17 item 5; absent when unknown
      json->set("drift_by_site", driftBySiteJson(state.focus->driftBySite));
      json->set("longest_on_task", stretchJson(state.focus->longest));
    }
  }

  Poco::JSON::Object::Ptr evidence = new Poco::JSON::Object;
  evidence->set("health", toString(state.evidence.health));
  evidence->set("source", state.evidence.source);
  evidence->set("away", state.evidence.away);
  if (state.evidence.current) {
    Poco::JSON::Object::Ptr current = new Poco::JSON::Object;
    current->set("app", state.evidence.current->app);
    current->set("title", state.evidence.current->title);
    current->set("at", state.evidence.current->atMs);
    current->set("domain", state.evidence.current->domain);
    evidence->set("current", current);
  }
  json->set("evidence", evidence);

  if (state.runtime == RuntimeState::Active) {
    Poco::JSON::Object::Ptr drift = new Poco::JSON::Object;
    drift->set("status", state.drift.status);
    drift->set("reason", state.drift.reason);
    drift->set("nudge", state.drift.nudge);
    drift->set("app", state.drift.app);
    drift->set("blocked", state.drift.blocked);
    if (state.drift.judgeAtMs > 0) drift->set("judge_at", state.drift.judgeAtMs);
    drift->set("site", state.drift.site);  // issue 17 item 4
    json->set("drift", drift);
  }
  if (state.runtime == RuntimeState::Planning) {
    const auto list = [](const std::vector<std::string>& apps) {
      Poco::JSON::Array::Ptr array = new Poco::JSON::Array;
      for (const auto& app : apps) array->add(app);
      return array;
    };
    json->set("default_allowed_apps", list(state.defaultAllowedApps));
    json->set("app_choices", list(state.appChoices));
    json->set("last_allowed_apps", list(state.lastAllowedApps));
    Poco::JSON::Object::Ptr coach = new Poco::JSON::Object;
    coach->set("status", state.coach.status);
    if (state.coach.proposal) {
      Poco::JSON::Object::Ptr proposal = new Poco::JSON::Object;
      proposal->set("next_action", state.coach.proposal->nextAction);
      proposal->set("success_condition", state.coach.proposal->successCondition);
      proposal->set("timebox_secs", state.coach.proposal->timeboxSecs);
      coach->set("proposal", proposal);
    }
    if (!state.coach.error.empty()) coach->set("error", state.coach.error);
    json->set("coach", coach);

    Poco::JSON::Object::Ptr tasks = new Poco::JSON::Object;
    tasks->set("status", state.tasks.status);
    Poco::JSON::Array::Ptr items = new Poco::JSON::Array;
    for (const auto& task : state.tasks.items) {
      Poco::JSON::Object::Ptr item = new Poco::JSON::Object;
      item->set("text", task.text);
      item->set("priority", task.priority ? std::string(1, *task.priority) : std::string());
      Poco::JSON::Array::Ptr projects = new Poco::JSON::Array;
      for (const auto& project : task.projects) projects->add(project);
      item->set("projects", projects);
      Poco::JSON::Array::Ptr contexts = new Poco::JSON::Array;
      for (const auto& context : task.contexts) contexts->add(context);
      item->set("contexts", contexts);
      item->set("due", task.due);
      items->add(item);
    }
    tasks->set("items", items);
    json->set("tasks", tasks);

    Poco::JSON::Object::Ptr profile = new Poco::JSON::Object;
    profile->set("status", state.profile.status);
    profile->set("bytes", static_cast<std::uint64_t>(state.profile.bytes));
    Poco::JSON::Object::Ptr knowledge = new Poco::JSON::Object;
    knowledge->set("profile", profile);
    json->set("knowledge", knowledge);
  }
  json->set("last_carry_forward", state.lastCarryForward);
  Poco::JSON::Object::Ptr ai = new Poco::JSON::Object;
  ai->set("backend", state.ai.backend);
  ai->set("available", state.ai.available);
  ai->set("detail", state.ai.detail);
  ai->set("auto", state.ai.origin.automatic);  // issue 18 items 2 and 3
  ai->set("found", state.ai.origin.found);
  ai->set("prompts", state.ai.origin.prompts);
  ai->set("destination", state.ai.origin.destination);
  ai->set("cost", aiCostToJson(state.ai.cost));
  json->set("ai", ai);
  Poco::JSON::Object::Ptr notify = new Poco::JSON::Object;
  notify->set("desktop", state.notify.desktop);
  notify->set("do_not_disturb", state.notify.doNotDisturb);
  json->set("notify", notify);
  return json;
}

}  // namespace antidrift

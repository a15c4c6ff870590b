/// @file json.h
/// The wire module (issue 15 item 5): the one place where AntiDrift's values
/// become the JSON the page, the CLI and the export read — the State
/// (GET /state and every SSE event), /healthz, the history and its export.
/// docs/API.md documents this file's output. Enums become their wire names
/// here (toString of each enum); nothing else builds these documents.
/// Every function is pure and thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>

#include "antidrift/session/history_view.h"
#include "antidrift/session/state.h"
#include "antidrift/store/audit_log.h"

namespace antidrift {

/// The timeline as JSON: `[{"start", "end", "app", "status"}]`, oldest first
/// (times UTC ms; status "ontask" | "drifting" | "unknown" | "away"). Used by
/// the State and the history view. Pure; thread-safe.
Poco::JSON::Array::Ptr timelineJson(const std::vector<TimelineSpan>& spans);

/// Where the drift went as JSON: `[{"where", "drift_secs", "visits"}]` in
/// the given order (issue 17 item 5). Used by the State and the history view.
/// Pure; thread-safe.
Poco::JSON::Array::Ptr driftBySiteJson(const std::vector<SiteDrift>& sites);
/// An on-task stretch as JSON: `{"secs", "start", "end"}` (UTC ms; issue 17
/// item 5). Pure; thread-safe.
Poco::JSON::Object::Ptr stretchJson(const OnTaskStretch& stretch);

/// The State JSON of docs/DESIGN.md §10, documented field by field in docs/API.md.
/// Keys absent for the current runtime are omitted. Pure; thread-safe.
Poco::JSON::Object::Ptr toJson(const State& state);

/// GET /healthz: {"status": "ok", "runtime": toString(runtime), "evidence":
/// toString(evidence health), "ai": the backend in use or "none", "ai_auto",
/// "ai_prompts"} of `state` (docs/API.md; issue 18 item 2).
Poco::JSON::Object::Ptr healthJson(const State& state);

/// One session view: {"id", "started_at", "ended_at", "next_action",
/// "success_condition", "outcome", "planned_secs", "actual_secs",
/// "on_task_secs", "drift_secs", "away_secs", "on_task_share" (number or
/// null), "switches", "drift_episodes", "corrections", "success", "note",
/// "recap", "carry_forward", "top_buckets": [{"app","secs"}], "timeline":
/// [{"start","end","app","status"}], "drift_by_site": [{"where",
/// "drift_secs","visits"}] or null, "longest_on_task": {"secs","start",
/// "end"} or null} — null for a record written before issue 17 item 5
/// (unknown, not 0). A record written before issue 7 has
/// planned_secs = timebox_secs and zeros/empty for what it did not record.
/// Pure.
Poco::JSON::Object::Ptr sessionViewJson(const SessionSummary& summary);

/// GET /history: {"sessions": [view…] (as given, newest first), "days":
/// [{"date", "focused_secs", "on_task_share", "sessions", "drift_secs",
/// "kept"}…] (oldest first), "week": {"this_week", "last_week"} each
/// {"focused_secs", "drift_share" (number or null), "sessions", "kept"}
/// (weekTrend of `days`)}. Pure.
Poco::JSON::Object::Ptr historyJson(const std::vector<SessionSummary>& sessions,
                                    const std::vector<HistoryDay>& days);

/// The export formats of `antidriftd --export-history` and GET /history/export.
enum class ExportFormat { Jsonl, Csv, Markdown };
/// "jsonl" | "csv" | "markdown" (or "md", the file's extension; issue 17
/// item 4) → the format; nullopt for anything else. Pure.
std::optional<ExportFormat> parseExportFormat(std::string_view text);
/// The Content-Type of a format: application/x-ndjson, text/csv; charset=utf-8,
/// text/markdown; charset=utf-8. Pure.
std::string exportContentType(ExportFormat format);
/// The file extension of a format: "jsonl", "csv", "md". Pure.
std::string exportExtension(ExportFormat format);

/// `sessions` (oldest first) as a document:
/// - Jsonl: one session view per line (sessionViewJson, compact);
/// - Csv: RFC 4180 with a header row; times as ISO 8601 UTC; a text cell
///   starting with = + - @ gets a leading ' so spreadsheets do not run it;
///   the AI cost as five `ai_` columns (issue 18 item 4);
/// - Markdown: a heading and one table row per session, with the review's
///   note and the AI cost; durations as the page shows them ("39 s" under a
///   minute, else "12 min"); in text cells '|' is escaped and a newline is a
///   space (issue 17 item 4, re-walk).
/// Columns: docs/API.md §6 "Export". Every document ends with a newline. Pure.
std::string exportHistory(const std::vector<SessionSummary>& sessions, ExportFormat format);

}  // namespace antidrift

/// @file replay_command.h
/// `antidriftd replay FILE …` (issue 8 item 1): "what would AntiDrift have
/// said about my day?" — the command line around replay::runReplay.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace antidrift {

/// Runs `antidriftd replay` with `args` (the words after "replay"):
///
///     FILE [--next TEXT [--done TEXT] [--allowed APP,APP…] | --commitments FILE]
///          [--json] [--backend none|fake|claude|codex] [--baseline | --no-baseline]
///          [--labels FILE [--oracle]] [--config FILE] [-D key=value]…
///
/// FILE is an ActivityWatch export or a JSONL of observations
/// (replay::loadActivity). The settings come from the configuration (the
/// --config file, else the default file when it exists, then -D), as the
/// daemon reads them (readDaemonConfig); the AI backend is `--backend`, by
/// default none (AI off) — the configured ai.backend is never used unless
/// named, so a real CLI is called only when asked. With the fake backend
/// (or --baseline) the judge-every-stable-title baseline (verdict scope
/// ignored) runs too and its counts
/// are shown beside the report. --labels scores the replay against a
/// labelled day (replay/label_score.h); --oracle (issue 16 item 1) answers
/// the judge and the nudge from those labels (replay/oracle.h) instead of a
/// backend — it needs --labels and refuses a --backend other than none. Writes the report (text, or
/// one JSON object with --json; docs/API.md "Replay") to `out` and problems to `err`. Returns 0; 2
/// for a usage error (unknown option, missing value, no commitment); 1 when FILE or the commitments
/// file is missing or malformed or the backend does not load; 78 (EX_CONFIG) for a bad
/// configuration. Never throws (bar std::bad_alloc). Not thread-safe (one per process).
int runReplayCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace antidrift

/// @file backend_probe.h
/// The probes behind `ai.backend = auto` (issue 18 item 2; docs/DESIGN.md §8
/// "Choosing a backend"): what answers on this machine, read at start. The
/// rule that picks from them is pure and lives in core
/// (antidrift/plugin/backend_choice.h); the I/O is here, outside core
/// (docs/ARCHITECTURE.md).
#pragma once

#include <chrono>
#include <map>
#include <string>

#include "antidrift/plugin/backend_choice.h"

namespace antidrift {

/// GET `{candidate.url}/models` on the candidate's host with `timeout` for
/// connecting and for the answer; `answered` when the reply is 200 with an
/// OpenAI model list `{"data": [{"id": …}, …]}` (models = the ids). Only
/// loopback and plain http are asked; `problem` says why not otherwise
/// ("connection refused", "timed out", "HTTP 404", "not an OpenAI model
/// list", "not http://"). Blocking for at most about 2 × `timeout`;
/// thread-safe; never throws.
plugin::ServerProbe probeModelServer(const plugin::ServerCandidate& candidate,
                                     std::chrono::milliseconds timeout);

/// Whether CLI `name` ("claude" or "codex") is usable without a paid call:
/// `command` (ai.<name>.command, else `name`) must be an executable file or on
/// $PATH; logged in when its credentials are there — claude:
/// $ANTHROPIC_API_KEY set or `<home>/.claude/.credentials.json`, else `claude
/// auth status --json` printing `"loggedIn": true`; codex:
/// `$CODEX_HOME/auth.json` (default `<home>/.codex/auth.json`), else `codex
/// login status` exiting 0. The status command gets `statusTimeout`.
/// Blocking; thread-safe; never throws.
plugin::CliProbe probeCli(const std::string& name, const std::string& command,
                          const std::string& home, std::chrono::milliseconds statusTimeout);

/// Runs every probe auto needs: the model servers of autoServerCandidates()
/// one after another (each with a 300 ms timeout, and none started once
/// about 1 s has gone: loopback refuses at once, so only a hung port costs
/// time), then claude and codex unless `localOnly` (each status command at
/// most 2 s, and only when no credentials file says enough). `settings`:
/// ai.openai.*, ai.claude.*, ai.codex.* by backend name (url, model,
/// command). Blocking at start, before the server listens. Never throws.
plugin::AutoProbes runAutoProbes(
    const std::map<std::string, std::map<std::string, std::string>>& settings,
    const std::string& home, bool localOnly);

}  // namespace antidrift

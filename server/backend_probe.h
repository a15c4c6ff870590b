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
#include <vector>

#include "antidrift/plugin/backend_choice.h"

namespace antidrift {

/// Largest model list the probe reads, bytes (docs/SECURITY.md N2).
inline constexpr std::size_t kMaxProbedModelListBytes = 256 * 1024;

/// GET `{candidate.url}/models` on the candidate's host, the whole exchange
/// (connect, request, answer) within `timeout`; `answered` when the reply is
/// 200 with an OpenAI model list `{"data": [{"id": …}, …]}` of at most
/// kMaxProbedModelListBytes (models = the ids, each through the text
/// module's shortMessage). Before a byte is sent the listener's owner is
/// checked (checkListenerOwner with `trustedUsers`, docs/SECURITY.md N1): a
/// refused one is logged with its uid and reported in `problem`. `problem`
/// otherwise says why not ("connection refused", "timed out", "HTTP 404",
/// "not an OpenAI model list", "not http://"). Blocking for at most about
/// `timeout`; thread-safe; never throws.
plugin::ServerProbe probeModelServer(const plugin::ServerCandidate& candidate,
                                     std::chrono::milliseconds timeout,
                                     const std::vector<std::string>& trustedUsers);

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
/// (ai.openai.url, then `ai.auto.servers` from settings["auto"]["servers"];
/// only ai.openai.url when ai.openai.api_key_file is set; the owner check
/// trusts ai.openai.trusted_users, default "ollama") one after another (each with a 300 ms timeout,
/// and none started once about 1 s has gone: loopback refuses at once, so only a hung port costs
/// time), then claude and codex unless `localOnly` (each status command at
/// most 2 s, and only when no credentials file says enough). `settings`:
/// ai.openai.*, ai.claude.*, ai.codex.* by backend name (url, model,
/// command). Blocking at start, before the server listens. Never throws.
plugin::AutoProbes runAutoProbes(
    const std::map<std::string, std::map<std::string, std::string>>& settings,
    const std::string& home, bool localOnly);

}  // namespace antidrift

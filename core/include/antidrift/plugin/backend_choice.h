/// @file backend_choice.h
/// `ai.backend = auto` (issue 18 item 2; docs/DESIGN.md §8 "Choosing a backend"):
/// which backend the daemon uses, from what its probes found. The probes
/// themselves (an HTTP GET of `{url}/models`, the CLIs on the PATH and their
/// login) live in the daemon (server/backend_probe.h); this is the pure rule.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace antidrift::plugin {

/// One OpenAI-compatible server auto asks, in order: the configured
/// ai.openai.url first (when set), then Ollama, llama.cpp's server and LM
/// Studio on 127.0.0.1 (duplicates dropped).
struct ServerCandidate {
  std::string url;  ///< the base URL ending in "/v1", e.g. "http://127.0.0.1:11434/v1"
  std::string
      label;  ///< what a person calls it: "Ollama", "llama.cpp", "LM Studio", "ai.openai.url"
};

/// The well-known servers auto asks after ai.openai.url, the default of
/// `ai.auto.servers`: Ollama, llama.cpp's server and LM Studio on 127.0.0.1.
inline constexpr const char* kDefaultAutoServers =
    "http://127.0.0.1:11434/v1, http://127.0.0.1:8080/v1, http://127.0.0.1:1234/v1";

/// The URLs auto asks, in order (see ServerCandidate); `configuredUrl` is
/// ai.openai.url ("" when not set), a trailing "/" dropped; `servers` is
/// `ai.auto.servers`, a comma-separated list of base URLs ("none": only
/// ai.openai.url), so a test names its own ports and never depends on what
/// listens on the machine's well-known ones. The three default URLs keep
/// their names as labels, others are labelled "ai.auto.servers". When
/// `apiKeySet` (ai.openai.api_key_file), only the configured URL (else
/// Ollama's default, the plugin's) is asked: the key never falls through to
/// another listener (docs/SECURITY.md N1). Pure.
std::vector<ServerCandidate> autoServerCandidates(const std::string& configuredUrl,
                                                  const std::string& servers = kDefaultAutoServers,
                                                  bool apiKeySet = false);

/// What the daemon's GET `{url}/models` found at one candidate.
struct ServerProbe {
  ServerCandidate candidate;
  bool answered = false;            ///< a 200 with an OpenAI model list
  std::vector<std::string> models;  ///< the list's "id"s, in order
  std::string problem;              ///< when not answered: "connection refused", "timed out", …
};

/// What the page and `antidrift status` say, before the first call, of an
/// OpenAI-compatible server named explicitly (`ai.backend = openai`; issue 18
/// item 1): "ai.openai.url at 127.0.0.1:11434, model qwen3" when it answered
/// GET /models ("model" the configured one, else the first listed; a model
/// the server does not list is refused earlier, at configure time), or
/// "not answering at 127.0.0.1:11434 (connection refused): each call tries
/// again" when it did not. Pure.
std::string describeConfiguredServer(const ServerProbe& probe, const std::string& model);

/// What the daemon found of one CLI (claude or codex).
struct CliProbe {
  bool onPath = false;    ///< an executable of that name on $PATH (or its ai.<name>.command)
  bool loggedIn = false;  ///< logged in as far as can be checked without a paid call
  std::string how;      ///< how login was checked: "credentials file", "`codex login status`", …
  std::string problem;  ///< why not usable: "not on the PATH", "not logged in (…)"
};

/// Everything auto looks at.
struct AutoProbes {
  std::vector<ServerProbe> servers;  ///< in autoServerCandidates order
  std::string configuredModel;       ///< ai.openai.model ("" = the server's first model)
  CliProbe claude;
  CliProbe codex;
  bool localOnly = false;  ///< privacy.local_only: the CLIs (remote) are never chosen
};

/// Auto's decision.
struct BackendChoice {
  /// "openai", "claude", "codex", or "none" (AI off).
  std::string backend = "none";
  /// Settings to add to the chosen plugin's configure map ("url", "model"
  /// for openai; empty otherwise).
  std::map<std::string, std::string> settings;
  /// What was found, for the page: "Ollama at 127.0.0.1:11434, model qwen3",
  /// "claude on the PATH, logged in (credentials file)"; "" when none.
  std::string found;
  /// One line for the log: what was chosen and why, and what was passed over.
  std::string reason;
};

/// The rule (issue 18 item 2): the first server that answered with at least
/// one model (the configured model when it lists it, else its first; a
/// configured model it does not list is used anyway, the plugin then says so),
/// then claude, then codex when on the PATH and logged in (never with
/// `localOnly`); else "none" with `reason` saying what each was missing. Pure.
BackendChoice chooseBackend(const AutoProbes& probes);

/// The one short line when auto found nothing (issue 18 item 2; issue 17,
/// re-walk C): what was missing, in a person's words (the page and `antidrift
/// status` say "AI off" before it), under 100
/// characters — the page, `antidrift status` and the bar's tooltip show it;
/// the page says what works without AI. Pure.
std::string aiOffByAutoSentence(bool localOnly);

}  // namespace antidrift::plugin

#include "antidrift/plugin/backend_choice.h"

#include <algorithm>

namespace antidrift::plugin {
namespace {

/// "127.0.0.1:11434" from "http://127.0.0.1:11434/v1".
std::string hostPortOf(const std::string& url) {
  std::string rest = url;
  const std::size_t scheme = rest.find("://");
  if (scheme != std::string::npos) rest = rest.substr(scheme + 3);
  return rest.substr(0, rest.find('/'));
}

std::string trimSlash(std::string url) {
  while (!url.empty() && url.back() == '/') url.pop_back();
  return url;
}

}  // namespace

std::vector<ServerCandidate> autoServerCandidates(const std::string& configuredUrl,
                                                  const std::string& servers, bool apiKeySet) {
  std::vector<ServerCandidate> candidates;
  const auto add = [&candidates](const std::string& url, const std::string& label) {
    const bool seen = std::any_of(candidates.begin(), candidates.end(),
                                  [&url](const ServerCandidate& c) { return c.url == url; });
    if (!url.empty() && !seen) candidates.push_back(ServerCandidate{url, label});
  };
  const auto labelOf = [](const std::string& url) -> std::string {
    if (url == "http://127.0.0.1:11434/v1") return "Ollama";
    if (url == "http://127.0.0.1:8080/v1") return "llama.cpp";
    if (url == "http://127.0.0.1:1234/v1") return "LM Studio";
    return "ai.auto.servers";
  };
  add(trimSlash(configuredUrl), "ai.openai.url");
  if (apiKeySet) {
    if (candidates.empty()) add("http://127.0.0.1:11434/v1", "Ollama");
    return candidates;
  }
  std::size_t start = 0;
  while (start <= servers.size()) {
    std::size_t comma = servers.find(',', start);
    if (comma == std::string::npos) comma = servers.size();
    std::string url = servers.substr(start, comma - start);
    const std::size_t first = url.find_first_not_of(" \t");
    const std::size_t last = url.find_last_not_of(" \t");
    url = first == std::string::npos ? std::string() : url.substr(first, last - first + 1);
    url = trimSlash(url);
    if (!url.empty() && url != "none") add(url, labelOf(url));
    start = comma + 1;
  }
  return candidates;
}

std::string describeConfiguredServer(const ServerProbe& probe, const std::string& model) {
  const std::string where = hostPortOf(probe.candidate.url);
  if (!probe.answered) {
    return "not answering at " + where + " (" +
           (probe.problem.empty() ? std::string("no answer") : probe.problem) +
           "): each call tries again";
  }
  const std::string shown = !model.empty()         ? model
                            : probe.models.empty() ? std::string("none listed")
                                                   : probe.models.front();
  return probe.candidate.label + " at " + where + ", model " + shown;
}

BackendChoice chooseBackend(const AutoProbes& probes) {
  BackendChoice choice;
  std::string passed;  // what was passed over, for the log line
  const auto note = [&passed](const std::string& what) {
    passed += (passed.empty() ? "" : "; ") + what;
  };
  for (const ServerProbe& server : probes.servers) {
    const std::string where = server.candidate.label + " at " + hostPortOf(server.candidate.url);
    if (!server.answered) {
      note(where + ": " + (server.problem.empty() ? "no answer" : server.problem));
      continue;
    }
    if (server.models.empty()) {
      note(where + ": answered but lists no model");
      continue;
    }
    std::string model = server.models.front();
    if (!probes.configuredModel.empty()) model = probes.configuredModel;
    choice.backend = "openai";
    choice.settings = {{"url", server.candidate.url}, {"model", model}};
    choice.found = where + ", model " + model;
    choice.reason = "ai.backend = auto chose openai: " + choice.found + " answered GET " +
                    server.candidate.url + "/models" + (passed.empty() ? "" : " (" + passed + ")");
    return choice;
  }
  if (probes.servers.empty()) note("no local model server to ask");
  for (const auto& [name, cli] : {std::pair<std::string, const CliProbe&>{"claude", probes.claude},
                                  std::pair<std::string, const CliProbe&>{"codex", probes.codex}}) {
    if (probes.localOnly) {
      note(name + ": skipped, privacy.local_only and it sends prompts off the machine");
      continue;
    }
    if (!cli.onPath || !cli.loggedIn) {
      note(
          name + ": " +
          (cli.problem.empty() ? (cli.onPath ? "not logged in" : "not on the PATH") : cli.problem));
      continue;
    }
    choice.backend = name;
    choice.found = name + " on the PATH, logged in" + (cli.how.empty() ? "" : " (" + cli.how + ")");
    choice.reason = "ai.backend = auto chose " + name + ": " + choice.found + " (" + passed + ")";
    return choice;
  }
  choice.reason = "ai.backend = auto found no usable AI backend, AI is off (" + passed + ")";
  return choice;
}

std::string aiOffByAutoSentence(bool localOnly) {
  // One short line (issue 17, re-walk C): `antidrift status` and the bar's
  // tooltip carry it as it is; the page explains what works without AI.
  // Without "AI is off": the page's heading and `antidrift status`'s "AI: off —" say that.
  return std::string("No local model server") +
         (localOnly ? "" : " and no logged-in claude or codex") + " was found at start.";
}

}  // namespace antidrift::plugin

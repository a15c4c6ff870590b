#include "server/backend_probe.h"

#include <exception>
#include <sstream>
#include <vector>

#include <Poco/Environment.h>
#include <Poco/Exception.h>
#include <Poco/File.h>
#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>
#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/Net/NetException.h>
#include <Poco/Path.h>
#include <Poco/StreamCopier.h>
#include <Poco/Timespan.h>
#include <Poco/URI.h>

#include "server/notify/do_not_disturb.h"

namespace antidrift {
namespace {

/// Largest model list read, bytes: a list of a few hundred models is far below.
constexpr std::streamsize kMaxModelListBytes = 1 << 20;

std::string setting(const std::map<std::string, std::map<std::string, std::string>>& settings,
                    const std::string& backend, const std::string& key) {
  const auto section = settings.find(backend);
  if (section == settings.end()) return "";
  const auto value = section->second.find(key);
  return value == section->second.end() ? "" : value->second;
}

bool executableExists(const std::string& command) {
  if (command.find('/') != std::string::npos) {
    try {
      const Poco::File file(command);
      return file.exists() && file.isFile() && file.canExecute();
    } catch (const Poco::Exception&) {
      return false;
    }
  }
  Poco::Path found;
  return Poco::Path::find(Poco::Environment::get("PATH", ""), command, found);
}

bool fileExists(const std::string& path) {
  try {
    return Poco::File(path).exists();
  } catch (const Poco::Exception&) {
    return false;
  }
}

}  // namespace

plugin::ServerProbe probeModelServer(const plugin::ServerCandidate& candidate,
                                     std::chrono::milliseconds timeout) {
  plugin::ServerProbe probe;
  probe.candidate = candidate;
  try {
    const Poco::URI uri(candidate.url);
    if (uri.getScheme() != "http") {
      probe.problem = "not http://";
      return probe;
    }
    Poco::Net::HTTPClientSession session(uri.getHost(), uri.getPort());
    const Poco::Timespan span(static_cast<long>(timeout.count() / 1000),
                              static_cast<long>((timeout.count() % 1000) * 1000));
    session.setTimeout(span, span, span);
    Poco::Net::HTTPRequest request(Poco::Net::HTTPRequest::HTTP_GET, uri.getPath() + "/models",
                                   Poco::Net::HTTPMessage::HTTP_1_1);
    session.sendRequest(request);
    Poco::Net::HTTPResponse response;
    std::istream& body = session.receiveResponse(response);
    if (response.getStatus() != Poco::Net::HTTPResponse::HTTP_OK) {
      probe.problem = "HTTP " + std::to_string(static_cast<int>(response.getStatus()));
      return probe;
    }
    std::string text;
    text.resize(static_cast<std::size_t>(kMaxModelListBytes));
    body.read(text.data(), kMaxModelListBytes);
    text.resize(static_cast<std::size_t>(body.gcount()));
    Poco::JSON::Parser parser;
    const Poco::JSON::Object::Ptr list = parser.parse(text).extract<Poco::JSON::Object::Ptr>();
    const Poco::JSON::Array::Ptr data = list.isNull() ? nullptr : list->getArray("data");
    if (data.isNull()) {
      probe.problem = "not an OpenAI model list";
      return probe;
    }
    for (std::size_t index = 0; index < data->size(); ++index) {
      const Poco::JSON::Object::Ptr model = data->getObject(static_cast<unsigned>(index));
      if (!model.isNull() && model->has("id"))
        probe.models.push_back(model->getValue<std::string>("id"));
    }
    probe.answered = true;
  } catch (const Poco::Net::ConnectionRefusedException&) {
    probe.problem = "connection refused";
  } catch (const Poco::TimeoutException&) {
    probe.problem = "timed out";
  } catch (const Poco::Exception& error) {
    probe.problem = error.displayText();
  } catch (const std::exception& error) {
    probe.problem = error.what();
  }
  if (!probe.answered && probe.problem.empty()) probe.problem = "not an OpenAI model list";
  return probe;
}

plugin::CliProbe probeCli(const std::string& name, const std::string& command,
                          const std::string& home, std::chrono::milliseconds statusTimeout) {
  plugin::CliProbe probe;
  probe.onPath = executableExists(command);
  if (!probe.onPath) {
    probe.problem = command == name ? "not on the PATH" : command + " is not an executable";
    return probe;
  }
  try {
    std::string out;
    if (name == "claude") {
      if (!Poco::Environment::get("ANTHROPIC_API_KEY", "").empty()) {
        probe.loggedIn = true;
        probe.how = "$ANTHROPIC_API_KEY is set";
      } else if (!home.empty() && fileExists(home + "/.claude/.credentials.json")) {
        probe.loggedIn = true;
        probe.how = "~/.claude/.credentials.json";
      } else {
        const int code =
            notify::runCommand({command, "auth", "status", "--json"}, statusTimeout, &out);
        const bool yes = out.find("\"loggedIn\": true") != std::string::npos ||
                         out.find("\"loggedIn\":true") != std::string::npos;
        probe.loggedIn = code == 0 && yes;
        probe.how = "`claude auth status`";
        if (!probe.loggedIn) probe.problem = "not logged in (`claude auth status`)";
      }
    } else {
      const std::string codexHome = Poco::Environment::get("CODEX_HOME", home + "/.codex");
      if (!codexHome.empty() && fileExists(codexHome + "/auth.json")) {
        probe.loggedIn = true;
        probe.how = codexHome + "/auth.json";
      } else {
        const int code = notify::runCommand({command, "login", "status"}, statusTimeout, &out);
        probe.loggedIn = code == 0;
        probe.how = "`codex login status`";
        if (!probe.loggedIn) probe.problem = "not logged in (`codex login status`)";
      }
    }
  } catch (const std::exception& error) {
    probe.loggedIn = false;
    probe.problem = std::string("cannot check its login: ") + error.what();
  }
  return probe;
}

plugin::AutoProbes runAutoProbes(
    const std::map<std::string, std::map<std::string, std::string>>& settings,
    const std::string& home, bool localOnly) {
  plugin::AutoProbes probes;
  probes.localOnly = localOnly;
  probes.configuredModel = setting(settings, "openai", "model");
  const auto started = std::chrono::steady_clock::now();
  constexpr std::chrono::milliseconds kEach{300};
  constexpr std::chrono::milliseconds kBudget{1000};
  for (const plugin::ServerCandidate& candidate :
       plugin::autoServerCandidates(setting(settings, "openai", "url"))) {
    if (std::chrono::steady_clock::now() - started > kBudget) {
      plugin::ServerProbe skipped;
      skipped.candidate = candidate;
      skipped.problem = "not asked (the 1 s budget was spent)";
      probes.servers.push_back(skipped);
      continue;
    }
    probes.servers.push_back(probeModelServer(candidate, kEach));
  }
  if (!localOnly) {
    constexpr std::chrono::milliseconds kStatus{2000};
    for (const char* name : {"claude", "codex"}) {
      std::string command = setting(settings, name, "command");
      if (command.empty()) command = name;
      (std::string(name) == "claude" ? probes.claude : probes.codex) =
          probeCli(name, command, home, kStatus);
    }
  }
  return probes;
}

}  // namespace antidrift

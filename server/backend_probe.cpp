#include "server/backend_probe.h"

#include <sys/socket.h>

#include <atomic>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <sstream>
#include <thread>
#include <vector>

#include <Poco/Environment.h>
#include <Poco/Exception.h>
#include <Poco/File.h>
#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>
#include <Poco/Logger.h>
#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/Net/NetException.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/Net/StreamSocket.h>
#include <Poco/Path.h>
#include <Poco/StreamCopier.h>
#include <Poco/Timespan.h>
#include <Poco/URI.h>

#include "antidrift/text/utf8.h"
#include "server/listener_owner.h"
#include "server/notify/do_not_disturb.h"

namespace antidrift {
namespace {

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
                                     std::chrono::milliseconds timeout,
                                     const std::vector<std::string>& trustedUsers) {
  plugin::ServerProbe probe;
  probe.candidate = candidate;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  try {
    const Poco::URI uri(candidate.url);
    if (uri.getScheme() != "http") {
      probe.problem = "not http://";
      return probe;
    }
    const Poco::Timespan span(static_cast<Poco::Timespan::TimeDiff>(timeout.count()) * 1000);
    Poco::Net::StreamSocket socket;
    socket.connect(Poco::Net::SocketAddress(uri.getHost(), uri.getPort()), span);
    const ListenerOwner owner =
        checkListenerOwner(static_cast<int>(socket.impl()->sockfd()), trustedUsers);
    if (!owner.trusted) {
      probe.problem = owner.problem;
      Poco::Logger::get("antidrift.daemon")
          .warning("ai.backend = auto: refused " + uri.getHost() + ":" +
                   std::to_string(uri.getPort()) + ": " + owner.problem);
      return probe;
    }
    socket.setReceiveTimeout(span);
    socket.setSendTimeout(span);
    // One deadline over the whole exchange, however slowly the server sends
    // (docs/SECURITY.md N2): the socket is shut down when it passes.
    std::mutex mutex;
    std::condition_variable wake;
    bool done = false;
    std::atomic<bool> expired{false};
    const int fd = static_cast<int>(socket.impl()->sockfd());
    std::thread guard([&] {
      std::unique_lock<std::mutex> lock(mutex);
      if (!wake.wait_until(lock, deadline, [&] { return done; })) {
        expired = true;
        ::shutdown(fd, SHUT_RDWR);
      }
    });
    struct Join {
      std::mutex& mutex;
      std::condition_variable& wake;
      bool& done;
      std::thread& thread;
      ~Join() {
        {
          std::lock_guard<std::mutex> lock(mutex);
          done = true;
        }
        wake.notify_all();
        thread.join();
      }
    } join{mutex, wake, done, guard};
    Poco::Net::HTTPClientSession session(socket);
    session.setTimeout(span, span, span);
    Poco::Net::HTTPRequest request(Poco::Net::HTTPRequest::HTTP_GET, uri.getPath() + "/models",
                                   Poco::Net::HTTPMessage::HTTP_1_1);
    request.setHost(uri.getHost(), uri.getPort());
    std::string text;
    try {
      session.sendRequest(request);
      Poco::Net::HTTPResponse response;
      std::istream& body = session.receiveResponse(response);
      if (response.getStatus() != Poco::Net::HTTPResponse::HTTP_OK) {
        probe.problem = "HTTP " + std::to_string(static_cast<int>(response.getStatus()));
        return probe;
      }
      char chunk[8192];
      while (body) {
        body.read(chunk, sizeof chunk);
        text.append(chunk, static_cast<std::size_t>(body.gcount()));
        if (text.size() > kMaxProbedModelListBytes) {
          probe.problem = "the model list is longer than " +
                          std::to_string(kMaxProbedModelListBytes) + " bytes";
          return probe;
        }
      }
    } catch (const Poco::Exception&) {
      if (expired) {
        probe.problem = "timed out";
        return probe;
      }
      throw;
    }
    if (expired) {
      probe.problem = "timed out";
      return probe;
    }
    Poco::JSON::Parser parser;
    const Poco::JSON::Object::Ptr list = parser.parse(text).extract<Poco::JSON::Object::Ptr>();
    const Poco::JSON::Array::Ptr data = list.isNull() ? nullptr : list->getArray("data");
    if (data.isNull()) {
      probe.problem = "not an OpenAI model list";
      return probe;
    }
    for (std::size_t index = 0; index < data->size(); ++index) {
      const Poco::JSON::Object::Ptr model = data->getObject(static_cast<unsigned>(index));
      if (!model.isNull() && model->has("id")) {
        // Text from the model server, cleaned before it is logged, shown or
        // stored (docs/SECURITY.md N3).
        const std::string id = text::shortMessage(model->getValue<std::string>("id"), 200);
        if (!id.empty()) probe.models.push_back(id);
      }
    }
    probe.answered = true;
  } catch (const Poco::Net::ConnectionRefusedException&) {
    probe.problem = "connection refused";
  } catch (const Poco::TimeoutException&) {
    probe.problem = "timed out";
  } catch (const Poco::Exception& error) {
    probe.problem = text::shortMessage(error.displayText(), 200);
  } catch (const std::exception& error) {
    probe.problem = text::shortMessage(error.what(), 200);
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
  const std::string servers = settings.count("auto") && settings.at("auto").count("servers")
                                  ? setting(settings, "auto", "servers")
                                  : std::string(plugin::kDefaultAutoServers);
  const std::string trusted =
      settings.count("openai") && settings.at("openai").count("trusted_users")
          ? setting(settings, "openai", "trusted_users")
          : std::string(kDefaultTrustedModelServerUsers);
  const std::vector<std::string> trustedUsers = parseUserList(trusted);
  for (const plugin::ServerCandidate& candidate :
       plugin::autoServerCandidates(setting(settings, "openai", "url"), servers,
                                    !setting(settings, "openai", "api_key_file").empty())) {
    if (std::chrono::steady_clock::now() - started > kBudget) {
      plugin::ServerProbe skipped;
      skipped.candidate = candidate;
      skipped.problem = "not asked (the 1 s budget was spent)";
      probes.servers.push_back(skipped);
      continue;
    }
    probes.servers.push_back(probeModelServer(candidate, kEach, trustedUsers));
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

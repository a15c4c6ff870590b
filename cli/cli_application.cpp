#include "cli/cli_application.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iostream>
#include <map>
#include <memory>

#include <nlohmann/json.hpp>

#include <Poco/Exception.h>
#include <Poco/FileStream.h>
#include <Poco/JSON/Array.h>
#include <Poco/JSON/Parser.h>
#include <Poco/Net/IPAddress.h>
#include <Poco/Net/NetException.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/NumberParser.h>
#include <Poco/String.h>
#include <Poco/StringTokenizer.h>
#include <Poco/URI.h>
#include <Poco/Util/HelpFormatter.h>
#include <Poco/Util/Option.h>
#include <Poco/Util/OptionCallback.h>
#include <Poco/Util/OptionException.h>

#include "antidrift/store/audit_log.h"
#include "antidrift/text/duration.h"
#include "cli/status_text.h"
#include "cli/watch_client.h"
#include "server/store_lock.h"
#include "server/token_file.h"

namespace antidrift::cli {
namespace {

using Poco::JSON::Object;
using Poco::Util::Option;
using Poco::Util::OptionCallback;

/// Seconds a REST call may take before the daemon counts as not answering.
constexpr std::chrono::seconds kRequestTimeout{10};
/// Exit code of a request the daemon refused (any 4xx or 5xx answer).
constexpr int kExitRefused = 1;

/// Options every command accepts.
const std::set<std::string> kGlobalOptions = {"config", "define", "url", "token-file", "help"};

/// The options each command takes besides the global ones.
const std::map<std::string, std::set<std::string>> kCommandOptions = {
    {"status", {"json", "format"}},
    {"plan", {"json"}},
    {"start", {"json", "next", "done", "minutes", "apps"}},
    {"complete", {"json"}},
    {"abandon", {"json"}},
    {"end", {"json"}},
    {"ontask", {"json"}},
    {"refocus", {"json"}},
    {"history", {"json", "count"}},
    {"watch", {"json", "format", "refresh"}},
    {"verify", {"json"}},
    {"review", {"json", "note"}},
    {"verdicts", {"json", "clear"}},
    {"token", {"json", "rotate"}},
};

/// The answers of `review` (POST /review "success"; issue 17 item 4).
const std::set<std::string> kReviewAnswers = {"yes", "partly", "no"};

/// Routes of the commands that are one POST with an empty body (`plan` is
/// CliApplication::plan: it goes on with a planning already open).
const std::map<std::string, std::string> kTransitionRoutes = {
    {"complete", "/complete"},   {"abandon", "/abandon"},       {"end", "/end"},
    {"ontask", "/drift/ontask"}, {"refocus", "/drift/refocus"},
};

Object::Ptr parseObject(const std::string& text) {
  Poco::JSON::Parser parser;
  return parser.parse(text).extract<Object::Ptr>();
}

/// A State answer, parsed for state_text.h; an answer that is no JSON
/// object is a Poco::DataFormatException, like any other unexpected answer.
nlohmann::json parseState(const std::string& text) {
  nlohmann::json state = nlohmann::json::parse(text, nullptr, false);
  if (state.is_discarded() || !state.is_object()) {
    throw Poco::DataFormatException("the State is not a JSON object");
  }
  return state;
}

/// antidrift-watch: beside this binary in the build tree, else
/// <prefix>/libexec/antidrift/ (cli/CMakeLists.txt).
std::string watchClientPath() {
  const ConfigEnvironment environment = ConfigEnvironment::fromProcess();
  return runsInstalled(environment)
             ? environment.executableDir + "/../libexec/antidrift/antidrift-watch"
             : std::string(ANTIDRIFT_WATCH_BUILD_PATH);
}

std::string compact(const Object& object) {
  std::ostringstream out;
  object.stringify(out);
  return out.str();
}

/// `value` percent-encoded for a query string (every reserved character, and '+').
std::string encodeQueryValue(const std::string& value) {
  std::string encoded;
  Poco::URI::encode(value, "!#$&'()*+,/:;=?@[]%", encoded);
  return encoded;
}

bool isDigits(const std::string& text) {
  return !text.empty() && text.size() <= 9 &&
         std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

CliApplication::CliApplication() {
  setUnixOptions(true);
}

void CliApplication::defineOptions(Poco::Util::OptionSet& options) {
  Application::defineOptions(options);
  const auto callback = OptionCallback<CliApplication>(this, &CliApplication::onOption);
  options.addOption(Option("help", "h", "print this help and exit").callback(callback));
  options.addOption(Option("config", "c",
                           "read the daemon's configuration from FILE (default: "
                           "~/.config/antidrift/antidrift.properties, if it exists)")
                        .argument("FILE")
                        .callback(callback));
  options.addOption(Option("define", "D",
                           "set a configuration key as for antidriftd, e.g. -D server.port=7718 "
                           "or -D store.dir=DIR")
                        .repeatable(true)
                        .argument("key=value")
                        .callback(callback));
  options.addOption(Option("url", "",
                           "the daemon's address, e.g. http://127.0.0.1:7717 "
                           "(default: server.address and server.port)")
                        .argument("URL")
                        .callback(callback));
  options.addOption(Option("token-file", "", "the daemon's token (default: <store.dir>/token)")
                        .argument("FILE")
                        .callback(callback));
  options.addOption(
      Option("json", "", "print the daemon's JSON instead of text").callback(callback));
  options.addOption(
      Option("format", "", "status, watch: print for a bar: waybar, i3blocks or polybar")
          .argument("BAR")
          .callback(callback));
  options.addOption(Option("refresh", "",
                           "watch --format: seconds between countdown refreshes, 0..3600 "
                           "(default 60; the last minute counts every second; 0: only changes)")
                        .argument("N")
                        .callback(callback));
  options.addOption(
      Option("next", "", "start: the next action").argument("TEXT").callback(callback));
  options.addOption(
      Option("done", "", "start: the success condition").argument("TEXT").callback(callback));
  options.addOption(
      Option("minutes", "", "start: the timebox, 1..720").argument("N").callback(callback));
  options.addOption(Option("apps", "", "start: allowed apps (window classes), comma-separated")
                        .argument("LIST")
                        .callback(callback));
  options.addOption(Option("note", "", "review: a note with the answer (optional)")
                        .argument("TEXT")
                        .callback(callback));
  options.addOption(Option("count", "n", "history: how many sessions, 1..200 (default 10)")
                        .argument("N")
                        .callback(callback));
  options.addOption(Option("rotate", "",
                           "token: make a new token; the running daemon accepts only it from "
                           "then on")
                        .callback(callback));
  options.addOption(Option("clear", "",
                           "verdicts: forget every remembered verdict, or only KEY when given "
                           "after it (as `verdicts` prints it)")
                        .callback(callback));
}

void CliApplication::onOption(const std::string& name, const std::string& value) {
  given_.insert(name);
  if (name == "help") {
    helpRequested_ = true;
    stopOptionsProcessing();
  } else if (name == "config") {
    configFile_ = value;
  } else if (name == "define") {
    const std::size_t equals = value.find('=');
    const std::string key = Poco::trim(value.substr(0, equals));
    if (equals == std::string::npos || key.empty()) {
      throw Poco::Util::InvalidArgumentException("-D needs key=value, got \"" + value + "\"");
    }
    config().setString(key, value.substr(equals + 1));
    commandLineKeys_.insert(key);
  } else if (name == "url") {
    url_ = value;
  } else if (name == "token-file") {
    tokenFile_ = value;
  } else if (name == "json") {
    json_ = true;
  } else if (name == "format") {
    format_ = value;
  } else if (name == "next") {
    nextAction_ = value;
  } else if (name == "done") {
    successCondition_ = value;
  } else if (name == "minutes") {
    minutes_ = value;
  } else if (name == "apps") {
    apps_ = value;
  } else if (name == "note") {
    note_ = value;
  } else if (name == "count") {
    count_ = value;
  } else if (name == "clear") {
    clear_ = true;
  } else if (name == "rotate") {
    rotate_ = true;
  } else if (name == "refresh") {
    refresh_ = value;
  }
}

void CliApplication::printHelp() {
  Poco::Util::HelpFormatter formatter(options());
  formatter.setCommand(commandName());
  formatter.setUsage("[OPTIONS] COMMAND");
  formatter.setHeader(
      // Every line fits 78 columns: HelpFormatter wraps a longer one at
      // column 0, which broke the columns (issue 17 item 4).
      "The command-line client of the AntiDrift daemon. Commands:\n"
      "  status [--format waybar|i3blocks|polybar]\n"
      "                            runtime, next action, time left, drift\n"
      "  plan                      enter planning (or go on with the open one)\n"
      "  start --next TEXT --done TEXT --minutes N [--apps a,b]\n"
      "                            start a session\n"
      "  complete | abandon | end  finish, give up, record and lock\n"
      "  review yes|partly|no [--note TEXT]\n"
      "                            answer the review: was it met?\n"
      "  ontask | refocus          the drift banner's two answers\n"
      "  history [-n N]            recent sessions, newest first, with your\n"
      "                            answer (met: yes|partly|no) and note\n"
      "  verdicts [--clear [KEY]]  remembered drift verdicts; forget them\n"
      "  watch                     one line per change, until Ctrl-C\n"
      "  watch --format waybar|i3blocks|polybar [--refresh N]\n"
      "                            for a status bar: one line per change in its\n"
      "                            format, the countdown every N s (60) and each\n"
      "                            second of the last minute, \"AntiDrift off\"\n"
      "                            while the daemon is gone (then reconnects);\n"
      "                            ends on SIGTERM or when the bar closes its output\n"
      "  verify                    check the audit chain in store.dir\n"
      "  token                     print the token file's path\n"
      "  token --rotate            a new token: the running daemon refuses the old\n"
      "                            one at once (open pages must be reloaded); with\n"
      "                            the daemon stopped, the file is rewritten here\n"
      "Options:");
  formatter.setFooter(
      "Exit codes: 0 ok, 1 refused by the daemon (or a broken chain), 64 usage, 69 daemon not "
      "running (or not answering), 73 new token not written, 77 token unreadable, 78 "
      "configuration error. See docs/API.md §10.");
  formatter.format(std::cout);
}

void CliApplication::readConfiguration() {
  const ConfigEnvironment environment = ConfigEnvironment::fromProcess();
  inBuildTree_ = !runsInstalled(environment);
  std::string path = configFile_;
  if (path.empty()) {
    path = defaultConfigFile(environment).value_or("");
  }
  if (!path.empty()) {
    config().add(loadConfigurationFile(path), PRIO_DEFAULT, false);
  }
  config_ = readDaemonConfig(config(), environment, commandLineKeys_);
  // A mistyped -D key would otherwise be ignored without a word; the daemon
  // names the nearest known key, and so does the CLI.
  for (const std::string& warning : unknownKeyWarnings(
           std::vector<std::string>(commandLineKeys_.begin(), commandLineKeys_.end()))) {
    std::cerr << "antidrift: warning: " << warning << std::endl;
  }
}

Endpoint CliApplication::endpoint() const {
  Endpoint endpoint;
  if (inBuildTree_) endpoint.startHint = "scripts/start.sh";
  if (url_) {
    Poco::URI uri;
    try {
      uri = Poco::URI(*url_);
    } catch (const Poco::Exception& error) {
      throw Poco::Util::InvalidArgumentException("--url " + *url_ + " is not a URL (" +
                                                 error.message() + ")");
    }
    if (uri.getScheme() != "http" || uri.getHost().empty() ||
        (!uri.getPath().empty() && uri.getPath() != "/")) {
      throw Poco::Util::InvalidArgumentException(
          "--url must look like http://127.0.0.1:7717, got " + *url_);
    }
    endpoint.host = uri.getHost();
    endpoint.port = uri.getPort();
    return endpoint;
  }
  if (config_.port == 0) {
    throw ConfigError(
        "server.port is 0 (the daemon picks a free port): pass --url with the address "
        "antidriftd printed");
  }
  endpoint.host = config_.address;
  if (endpoint.host == "0.0.0.0") {
    endpoint.host = "127.0.0.1";
  } else if (endpoint.host == "::") {
    endpoint.host = "::1";
  }
  endpoint.port = config_.port;
  return endpoint;
}

std::string CliApplication::storeTokenFile() const {
  return config_.storeDir + "/" + TokenFile::kFileName;
}

std::optional<std::string> CliApplication::tokenOrSayWhy() const {
  try {
    return readToken();
  } catch (const std::runtime_error& error) {
    std::cerr << "antidrift: " << terminalSafe(error.what()) << std::endl;
    return std::nullopt;
  }
}

std::string CliApplication::readToken() const {
  const std::string path = tokenFile_.empty() ? storeTokenFile() : tokenFile_;
  std::string token;
  try {
    Poco::FileInputStream in(path);
    std::getline(in, token);
  } catch (const Poco::Exception& error) {
    // Poco's message for a missing file is the path itself: name the kind
    // of failure instead, and the path only once.
    std::string reason = Poco::toLower(std::string(error.name()));
    if (!error.message().empty() && error.message() != path) reason += ": " + error.message();
    throw std::runtime_error("cannot read the token file " + path + " (" + reason +
                             "); it is in the daemon's store.dir: pass the daemon's --config or "
                             "-D store.dir=DIR, or --token-file FILE");
  }
  return Poco::trim(token);
}

int CliApplication::usageError(const std::string& message) {
  std::cerr << "antidrift: " << message << "; see antidrift --help" << std::endl;
  return EXIT_USAGE;
}

int CliApplication::refused(const Reply& reply) {
  std::string sentence;
  try {
    sentence = parseObject(reply.body)->getValue<std::string>("error");
  } catch (const Poco::Exception&) {
    sentence = "antidriftd answered HTTP " + std::to_string(reply.status);
  }
  std::cerr << "antidrift: " << terminalSafe(sentence) << std::endl;
  return kExitRefused;
}

int CliApplication::printState(const std::string& body) {
  if (json_) {
    std::cout << terminalSafe(body) << std::endl;
  } else {
    std::cout << terminalSafe(describeState(parseState(body))) << std::flush;
  }
  return EXIT_OK;
}

int CliApplication::main(const std::vector<std::string>& args) {
  if (helpRequested_) {
    printHelp();
    return EXIT_OK;
  }
  if (args.empty()) {
    return usageError(
        "a command is needed (status, plan, start, complete, abandon, review, end, ontask, "
        "refocus, history, watch, verify, verdicts, token)");
  }
  const std::string& command = args.front();
  const auto known = kCommandOptions.find(command);
  if (known == kCommandOptions.end()) {
    return usageError("unknown command \"" + command + "\"");
  }
  // `review` takes its answer; only `verdicts --clear KEY` takes a key to forget.
  const bool takesKey = command == "verdicts" && clear_;
  if (command == "review") {
    if (args.size() != 2 || kReviewAnswers.count(args[1]) == 0) {
      return usageError("review takes one answer: yes, partly or no" +
                        (args.size() > 1 ? ", got \"" + args[1] + "\"" : std::string()));
    }
    reviewAnswer_ = args[1];
  } else if (args.size() > (takesKey ? 2u : 1u)) {
    return usageError(command + " takes no argument \"" + args[takesKey ? 2 : 1] + "\"");
  }
  if (takesKey && args.size() == 2) clearKey_ = unescapeVerdictKey(args[1]);
  for (const std::string& option : given_) {
    if (kGlobalOptions.count(option) == 0 && known->second.count(option) == 0) {
      return usageError(command + " takes no --" + option);
    }
  }
  try {
    readConfiguration();
  } catch (const ConfigError& error) {
    std::cerr << "antidrift: configuration error: " << error.what() << std::endl;
    return EXIT_CONFIG;
  }
  if (command == "verify") {
    return verify();
  }
  if (command == "token" && !rotate_) {
    return tokenPath();
  }
  try {
    DaemonClient client(endpoint(), kRequestTimeout);
    return runCommand(command, client);
  } catch (const Poco::Util::OptionException& error) {
    return usageError(error.message());
  } catch (const ConfigError& error) {
    std::cerr << "antidrift: configuration error: " << error.what() << std::endl;
    return EXIT_CONFIG;
  } catch (const DaemonUnreachable& error) {
    std::cerr << "antidrift: " << terminalSafe(error.what()) << std::endl;
    return EXIT_UNAVAILABLE;
  } catch (const NotTheDaemon& error) {
    std::cerr << "antidrift: " << terminalSafe(error.what()) << std::endl;
    return EXIT_NOPERM;
  } catch (const Poco::Exception& error) {
    std::cerr << "antidrift: unexpected answer from antidriftd: " << error.displayText()
              << std::endl;
    return EXIT_SOFTWARE;
  }
}

int CliApplication::runCommand(const std::string& command, DaemonClient& client) {
  if (command == "status") {
    return status(client);
  }
  if (command == "start") {
    return start(client);
  }
  if (command == "history") {
    return history(client);
  }
  if (command == "plan") {
    return plan(client);
  }
  if (command == "watch") {
    return watch(client);
  }
  if (command == "review") {
    Object body;
    body.set("success", reviewAnswer_);
    if (note_) body.set("note", *note_);
    return transition(client, "/review", compact(body));
  }
  if (command == "verdicts") {
    return verdicts(client);
  }
  if (command == "token") {
    return token(client);
  }
  return transition(client, kTransitionRoutes.at(command));
}

int CliApplication::status(DaemonClient& client) {
  std::optional<BarFormat> bar;
  if (format_) {
    bar = parseBarFormat(*format_);
    if (!bar) {
      return usageError("--format must be waybar, i3blocks or polybar, got \"" + *format_ + "\"");
    }
    if (json_) {
      return usageError("--format and --json exclude each other");
    }
  }
  Reply reply;
  try {
    reply = client.get("/state");
  } catch (const DaemonUnreachable& error) {
    if (!bar) {
      throw;
    }
    // A bar shows "AntiDrift off" rather than an error or nothing.
    std::cerr << "antidrift: " << terminalSafe(error.what()) << std::endl;
    std::cout << terminalSafe(offlineBarOutput(*bar)) << std::flush;
    return EXIT_OK;
  }
  if (reply.status != 200) {
    return refused(reply);
  }
  if (bar) {
    std::cout << terminalSafe(barOutput(parseState(reply.body), *bar)) << std::flush;
    return EXIT_OK;
  }
  return printState(reply.body);
}

int CliApplication::transition(DaemonClient& client, const std::string& path,
                               const std::string& body) {
  const std::optional<std::string> tokenRead = tokenOrSayWhy();
  if (!tokenRead) return EXIT_NOPERM;
  const std::string& token = *tokenRead;
  const Reply reply = client.post(path, body, token);
  if (reply.status != 200) {
    return refused(reply);
  }
  return printState(reply.body);
}

int CliApplication::start(DaemonClient& client) {
  if (!nextAction_ || Poco::trim(*nextAction_).empty()) {
    return usageError("start needs --next TEXT (the next action)");
  }
  if (!successCondition_ || Poco::trim(*successCondition_).empty()) {
    return usageError("start needs --done TEXT (the success condition: what done looks like)");
  }
  if (!minutes_) {
    return usageError("start needs --minutes N (the timebox)");
  }
  if (!isDigits(*minutes_)) {
    return usageError("--minutes must be a whole number of minutes, got \"" + *minutes_ + "\"");
  }
  Object body;
  body.set("next_action", *nextAction_);
  body.set("success_condition", *successCondition_);
  body.set("timebox_minutes", Poco::NumberParser::parse64(*minutes_));
  if (apps_) {
    Poco::JSON::Array::Ptr apps = new Poco::JSON::Array;
    Poco::StringTokenizer tokens(
        *apps_, ",", Poco::StringTokenizer::TOK_TRIM | Poco::StringTokenizer::TOK_IGNORE_EMPTY);
    for (const std::string& app : tokens) {
      apps->add(app);
    }
    body.set("allowed_apps", apps);
  }
  const std::optional<std::string> tokenRead = tokenOrSayWhy();
  if (!tokenRead) return EXIT_NOPERM;
  const std::string& token = *tokenRead;
  // A session starts from planning (docs/DESIGN.md §2); enter it when locked, and
  // leave it again if the commitment is refused, so nothing changes.
  const Reply state = client.get("/state");
  if (state.status != 200) {
    return refused(state);
  }
  const bool enteredPlanning =
      parseObject(state.body)->getValue<std::string>("runtime") == "locked";
  if (enteredPlanning) {
    const Reply planning = client.post("/planning", "{}", token);
    if (planning.status != 200) {
      return refused(planning);
    }
  }
  const Reply reply = client.post("/commitment", compact(body), token);
  if (reply.status != 200) {
    if (enteredPlanning) {
      client.post("/planning/cancel", "{}", token);
    }
    return refused(reply);
  }
  return printState(reply.body);
}

int CliApplication::plan(DaemonClient& client) {
  const std::optional<std::string> tokenRead = tokenOrSayWhy();
  if (!tokenRead) return EXIT_NOPERM;
  const std::string& token = *tokenRead;
  const Reply reply = client.post("/planning", "{}", token);
  if (reply.status == 409) {
    // Already planning (the page, or an earlier `plan`): POST /planning only
    // leaves locked (docs/API.md "Transitions"), and the person asked to be
    // where they already are, so go on with that planning rather than fail.
    const Reply state = client.get("/state");
    if (state.status == 200 &&
        parseObject(state.body)->getValue<std::string>("runtime") == "planning") {
      std::cerr << "antidrift: already planning; go on with antidrift start --next TEXT "
                   "--done TEXT --minutes N (or plan on the page)"
                << std::endl;
      return printState(state.body);
    }
  }
  if (reply.status != 200) {
    return refused(reply);
  }
  return printState(reply.body);
}

int CliApplication::history(DaemonClient& client) {
  const std::string count = count_.value_or("10");
  // The daemon's own bound (GET /history takes n = 1..200): a count outside
  // it is bad usage like any other, said before anything is sent.
  if (!isDigits(count) || count.size() > 3 || std::stoi(count) < 1 || std::stoi(count) > 200) {
    return usageError("-n must be a number of sessions from 1 to 200, got \"" + count + "\"");
  }
  const Reply reply = client.get("/history?n=" + count);
  if (reply.status != 200) {
    return refused(reply);
  }
  if (json_) {
    std::cout << terminalSafe(reply.body) << std::endl;
    return EXIT_OK;
  }
  const Poco::JSON::Object::Ptr history = parseObject(reply.body);
  const Poco::JSON::Array::Ptr sessions = history->getArray("sessions");
  if (!sessions || sessions->size() == 0) {
    std::cout << "no sessions recorded yet" << std::endl;
    return EXIT_OK;
  }
  for (std::size_t i = 0; i < sessions->size(); ++i) {
    const Poco::JSON::Object::Ptr session = sessions->getObject(static_cast<unsigned>(i));
    std::cout << terminalSafe(historyLine(*session)) << "\n";
    std::cout << terminalSafe(historyDetailLine(*session)) << "\n";  // issue 17 item 5
    const std::string note = historyNoteLine(*session);              // issue 17 item 4, re-walk
    if (!note.empty()) std::cout << terminalSafe(note) << "\n";
  }
  const std::string week = weekLine(*history);
  if (!week.empty()) std::cout << terminalSafe(week) << "\n";
  std::cout << std::flush;
  return EXIT_OK;
}

int CliApplication::verdicts(DaemonClient& client) {
  if (clear_) {
    const std::optional<std::string> tokenRead = tokenOrSayWhy();
    if (!tokenRead) return EXIT_NOPERM;
    const std::string& token = *tokenRead;
    const Reply reply = client.remove(
        clearKey_ ? "/verdicts?key=" + encodeQueryValue(*clearKey_) : std::string("/verdicts"),
        token);
    if (reply.status != 200) {
      return refused(reply);
    }
    if (json_) {
      std::cout << reply.body << std::endl;
    } else {
      std::cout << (clearKey_ ? "forgot " + escapeVerdictKey(*clearKey_)
                              : std::string("forgot every remembered verdict"))
                << std::endl;
    }
    return EXIT_OK;
  }
  const Reply reply = client.get("/verdicts");
  if (reply.status != 200) {
    return refused(reply);
  }
  if (json_) {
    std::cout << reply.body << std::endl;
    return EXIT_OK;
  }
  const Poco::JSON::Array::Ptr list = parseObject(reply.body)->getArray("verdicts");
  if (!list || list->size() == 0) {
    std::cout << "no verdicts remembered" << std::endl;
    return EXIT_OK;
  }
  for (std::size_t i = 0; i < list->size(); ++i) {
    std::cout << terminalSafe(verdictLine(*list->getObject(static_cast<unsigned>(i)))) << "\n";
  }
  std::cout << std::flush;
  return EXIT_OK;
}

int CliApplication::watch(DaemonClient& client) {
  const std::chrono::seconds silenceLimit(3 * config_.sseKeepAliveSecs + 5);
  if (refresh_ && !format_) {
    return usageError("--refresh needs --format");
  }
  if (format_) {
    WatchClientOptions options;
    const std::optional<BarFormat> bar = parseBarFormat(*format_);
    if (!bar) {
      return usageError("--format must be waybar, i3blocks or polybar, got \"" + *format_ + "\"");
    }
    if (json_) {
      return usageError("--format and --json exclude each other");
    }
    options.format = *bar;
    if (refresh_) {
      if (!isDigits(*refresh_) || Poco::NumberParser::parse(*refresh_) > 3600) {
        return usageError("--refresh must be a number of seconds from 0 to 3600, got \"" +
                          *refresh_ + "\"");
      }
      options.refresh = std::chrono::seconds(Poco::NumberParser::parse(*refresh_));
    }
    options.silenceLimit = silenceLimit;
    options.connectTimeout = kRequestTimeout;
    return execWatchClient(client.endpoint(), options);
  }
  std::string lastKey;
  const Reply reply = client.streamEvents(
      [&](const ServerEvent& event) {
        if (event.name == "bye") {
          return false;
        }
        if (event.name != "state") {
          return true;
        }
        if (json_) {
          std::cout << terminalSafe(event.data) << std::endl;
          return true;
        }
        const nlohmann::json state = parseState(event.data);
        const std::string key = summaryKey(state);
        if (key != lastKey) {
          lastKey = key;
          std::cout << terminalSafe(summaryLine(state)) << std::endl;
        }
        return true;
      },
      silenceLimit);
  if (reply.status != 200) {
    return refused(reply);
  }
  std::cerr << "antidrift: antidriftd on " << client.endpoint().url() << " stopped" << std::endl;
  return EXIT_UNAVAILABLE;
}

int CliApplication::execWatchClient(const Endpoint& endpoint, WatchClientOptions& options) {
  // The address resolved here, once, as DaemonClient resolves it; the
  // Host header names it as the user wrote it.
  Poco::Net::SocketAddress address;
  try {
    address = Poco::Net::SocketAddress(endpoint.host, endpoint.port);
  } catch (const Poco::Net::NetException& error) {
    throw DaemonUnreachable("cannot find " + endpoint.url() + ": " + error.displayText());
  }
  const std::optional<SocketEnd> daemon = SocketEnd::from(address.addr(), address.length());
  if (!daemon) {
    throw DaemonUnreachable(endpoint.url() + " is no IPv4 or IPv6 address");
  }
  options.daemon = *daemon;
  const std::string url = endpoint.url();
  options.host = url.substr(url.find("//") + 2);
  const std::string path = watchClientPath();
  std::vector<std::string> arguments = {path};
  for (std::string& argument : watchClientArguments(options)) {
    arguments.push_back(std::move(argument));
  }
  std::vector<char*> argv;
  for (std::string& argument : arguments) {
    argv.push_back(argument.data());
  }
  argv.push_back(nullptr);
  std::cout << std::flush;
  // The same process goes on as antidrift-watch (issue 20 item 2): a bar that
  // started `antidrift watch` keeps its pid, its pipes and its signals.
  ::execv(path.c_str(), argv.data());
  std::cerr << "antidrift: cannot run " << path << ": " << std::strerror(errno)
            << " (is antidrift installed whole?)" << std::endl;
  return EXIT_SOFTWARE;
}

int CliApplication::tokenPath() {
  const std::string path = tokenFile_.empty() ? storeTokenFile() : tokenFile_;
  if (::access(path.c_str(), R_OK) != 0) {
    std::cerr << "antidrift: no readable token file " << terminalSafe(path)
              << " (antidriftd makes it at its first start; pass the daemon's --config or "
                 "-D store.dir=DIR)"
              << std::endl;
    return EXIT_NOPERM;
  }
  if (json_) {
    Object answer;
    answer.set("token_file", path);
    std::cout << compact(answer) << std::endl;
  } else {
    std::cout << terminalSafe(path) << std::endl;
  }
  return EXIT_OK;
}

int CliApplication::token(DaemonClient& client) {
  // The current token authenticates the rotation; without one there is
  // nothing to rotate (antidriftd makes the first at its first start).
  const std::optional<std::string> currentRead = tokenOrSayWhy();
  if (!currentRead) return EXIT_NOPERM;
  const std::string& current = *currentRead;
  std::string daemonFile;
  try {
    const Reply reply = client.post("/token/rotate", "{}", current);
    if (reply.status == 404) {
      std::cerr << "antidrift: this antidriftd cannot rotate its token (it is older than "
                   "`antidrift token --rotate`): stop it, run this again, then start it"
                << std::endl;
      return kExitRefused;
    }
    if (reply.status != 200) {
      return refused(reply);
    }
    daemonFile = parseObject(reply.body)->optValue<std::string>("token_file", storeTokenFile());
  } catch (const DaemonUnreachable&) {
    // Nobody answers. Rotate the file here only while no daemon holds the
    // store: one that holds it but does not answer (another port, hung)
    // would keep accepting the old token.
    std::unique_ptr<StoreLock> lock;
    try {
      StoreLockAttempt attempt = StoreLock::tryAcquire(config_.storeDir);
      if (!attempt.lock) {
        std::cerr << "antidrift: antidriftd (pid " << attempt.holderPid << ") uses "
                  << terminalSafe(config_.storeDir) << " but does not answer on "
                  << client.endpoint().url()
                  << ": the token was not rotated here (pass --url with the address "
                     "antidriftd printed, or stop it and run this again)"
                  << std::endl;
        return EXIT_UNAVAILABLE;
      }
      lock = std::move(attempt.lock);
      const std::string path = storeTokenFile();
      TokenFile::rotate(config_.storeDir);
      if (json_) {
        Object answer;
        answer.set("rotated", true);
        answer.set("token_file", path);
        answer.set("daemon", "not running");
        std::cout << compact(answer) << std::endl;
      } else {
        std::cout << "rotated the token in " << terminalSafe(path)
                  << " (antidriftd is not running; it uses the new token when it starts)"
                  << std::endl;
      }
    } catch (const std::runtime_error& failure) {
      std::cerr << "antidrift: cannot rotate the token: " << terminalSafe(failure.what())
                << "; the old token is unchanged" << std::endl;
      return EXIT_CANTCREAT;
    }
    return EXIT_OK;
  }
  const std::string url = client.endpoint().url();
  if (json_) {
    Object answer;
    answer.set("rotated", true);
    answer.set("token_file", daemonFile);
    answer.set("daemon", url);
    std::cout << compact(answer) << std::endl;
  } else {
    std::cout << "rotated the token: antidriftd on " << url
              << " accepts only the new one from now on; it is in " << terminalSafe(daemonFile)
              << "\nopen AntiDrift pages must be reloaded (" << url << "/)" << std::endl;
  }
  // A copy named with --token-file is not the daemon's file: say it is stale.
  bool copyIsStale = false;
  try {
    copyIsStale = !tokenFile_.empty() && readToken() == current;
  } catch (const std::runtime_error&) {
    copyIsStale = false;  // gone or unreadable: nothing old left to use
  }
  if (copyIsStale) {
    std::cerr << "antidrift: " << terminalSafe(tokenFile_)
              << " (--token-file) still holds the old token" << std::endl;
  }
  return EXIT_OK;
}

int CliApplication::verify() {
  // Reads the store itself, like antidriftd --verify-audit: the chain can be
  // checked with the daemon stopped, and a daemon cannot vouch for its own log.
  const std::string path = config_.storeDir + "/audit.jsonl";
  const AuditVerification result = AuditLog::verify(path);
  if (json_) {
    Object answer;
    answer.set("ok", result.ok);
    answer.set("path", path);
    answer.set("records", static_cast<Poco::UInt64>(result.records));
    if (result.firstBadLine) {
      answer.set("line", static_cast<Poco::UInt64>(*result.firstBadLine));
    }
    if (!result.ok) {
      answer.set("problem", result.problem);
    }
    std::cout << compact(answer) << std::endl;
  } else if (result.ok) {
    std::cout << "audit chain ok: " << antidrift::text::countText(result.records, "record") << " ("
              << path << ")" << std::endl;
  } else if (result.firstBadLine) {
    std::cout << "audit chain broken at line " << *result.firstBadLine << ": " << result.problem
              << " (" << path << ")" << std::endl;
  } else {
    std::cout << "audit chain broken: " << result.problem << " (" << path << ")" << std::endl;
  }
  return result.ok ? EXIT_OK : kExitRefused;
}

}  // namespace antidrift::cli

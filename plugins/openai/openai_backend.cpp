/// @file openai_backend.cpp
/// The openai backend: an OpenAI-compatible chat-completions server (Ollama,
/// llama.cpp's llama-server, LM Studio, vLLM, LocalAI) over HTTP through
/// Poco::Net, from the plugin only (issue 18 item 1; docs/ARCHITECTURE.md:
/// core stays free of Poco::Net; docs/TECH-NOTES.md §8 for the servers' facts;
/// docs/PLUGINS.md "A network backend" walks through this file).

#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <fstream>
#include <istream>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <Poco/Exception.h>
#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>
#include <Poco/Logger.h>
#include <Poco/Net/DNS.h>
#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/Net/IPAddress.h>
#include <Poco/Net/NetException.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/Net/StreamSocket.h>
#include <Poco/Path.h>
#include <Poco/String.h>
#include <Poco/Timespan.h>
#include <Poco/URI.h>

#include "antidrift/backend.h"
#include "antidrift/text/utf8.h"
#include "server/listener_owner.h"

namespace {

using antidrift::BackendError;
using Clock = std::chrono::steady_clock;

/// Ollama's OpenAI-compatible endpoint, the default `ai.openai.url`.
const char* const kDefaultUrl = "http://127.0.0.1:11434/v1";
/// The longest the configure-time `GET /models` may take, milliseconds.
const std::int64_t kProbeTimeoutMs = 2000;
/// Longest server error text kept in a BackendError message, code points.
const std::size_t kMaxDetail = 160;
/// Largest `GET /models` answer read, bytes (docs/SECURITY.md N2): a list of a
/// few hundred models is far below; more is refused, not read.
const std::int64_t kMaxModelListBytes = 256 * 1024;
/// Largest chat-completions answer read, bytes (docs/SECURITY.md N2): the
/// roles' answers are a few hundred bytes of JSON, a thinking model's
/// reasoning a few KB.
const std::int64_t kMaxAnswerBytes = 1024 * 1024;
/// Largest token count believed from a server's usage (docs/SECURITY.md N3):
/// counts saturate here (and at 0), so a cost never overflows.
const std::int64_t kMaxTokens = 1000000000;

Poco::Logger& logger() {
  return Poco::Logger::get("antidrift.ai.openai");
}

/// `text` from the server as one safe line of at most kMaxDetail code points:
/// through the text module (no control or escape bytes, valid UTF-8), so it
/// can be logged, shown and stored (docs/SECURITY.md N3).
std::string shorten(const std::string& text) {
  return antidrift::text::shortMessage(text, kMaxDetail);
}

/// `count` clamped to 0..kMaxTokens (docs/SECURITY.md N3).
std::int64_t saturatedTokens(const Poco::Dynamic::Var& count) {
  try {
    const double value = count.convert<double>();
    if (!(value > 0)) return 0;
    if (value >= static_cast<double>(kMaxTokens)) return kMaxTokens;
    return static_cast<std::int64_t>(value);
  } catch (const std::exception&) {
    return 0;
  }
}

/// Shuts a socket down at a deadline, so one deadline bounds the whole
/// exchange however slowly the server sends (docs/SECURITY.md N2): a read
/// blocked in the socket returns at once. Joined in the destructor.
class DeadlineGuard {
 public:
  DeadlineGuard(int fd, Clock::time_point deadline)
      : thread_([this, fd, deadline] {
          std::unique_lock<std::mutex> lock(mutex_);
          if (!wake_.wait_until(lock, deadline, [this] { return done_; })) {
            expired_ = true;
            ::shutdown(fd, SHUT_RDWR);
          }
        }) {}
  ~DeadlineGuard() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }
  DeadlineGuard(const DeadlineGuard&) = delete;
  DeadlineGuard& operator=(const DeadlineGuard&) = delete;
  bool expired() const { return expired_.load(); }

 private:
  std::mutex mutex_;
  std::condition_variable wake_;
  bool done_ = false;
  std::atomic<bool> expired_{false};
  std::thread thread_;  ///< last: started once the members it uses exist
};

/// `text` with every occurrence of `secret` replaced by "***" (a server may
/// echo the API key in its error).
std::string redact(std::string text, const std::string& secret) {
  if (secret.empty()) return text;
  for (std::size_t at = text.find(secret); at != std::string::npos;
       at = text.find(secret, at + 3)) {
    text.replace(at, secret.size(), "***");
  }
  return text;
}

/// `text` without `<think>…</think>` blocks (a thinking model's reasoning
/// before its answer, docs/TECH-NOTES.md §8); an unclosed `<think>` drops the
/// rest.
std::string stripThinking(std::string text) {
  for (std::size_t open = text.find("<think>"); open != std::string::npos;
       open = text.find("<think>", open)) {
    const std::size_t close = text.find("</think>", open);
    if (close == std::string::npos) {
      text.erase(open);
      break;
    }
    text.erase(open, close + 8 - open);
  }
  return Poco::trim(text);
}

/// True for a loopback address literal, "localhost", or a name that resolves
/// to loopback addresses only.
bool isLoopbackHost(const std::string& host) {
  if (Poco::icompare(host, "localhost") == 0) return true;
  Poco::Net::IPAddress address;
  if (Poco::Net::IPAddress::tryParse(host, address)) return address.isLoopback();
  try {
    const Poco::Net::HostEntry entry = Poco::Net::DNS::hostByName(host);
    if (entry.addresses().empty()) return false;
    return std::all_of(entry.addresses().begin(), entry.addresses().end(),
                       [](const Poco::Net::IPAddress& a) { return a.isLoopback(); });
  } catch (const Poco::Exception&) {
    return false;
  }
}

/// The comma-separated host names of `list`, trimmed and lower-cased.
std::vector<std::string> hostList(const std::string& list) {
  std::vector<std::string> hosts;
  std::istringstream in(list);
  for (std::string host; std::getline(in, host, ',');) {
    host = Poco::toLower(Poco::trim(host));
    if (!host.empty()) hosts.push_back(host);
  }
  return hosts;
}

std::string setting(const std::map<std::string, std::string>& settings, const std::string& key,
                    const std::string& fallback = "") {
  const auto it = settings.find(key);
  return it == settings.end() ? fallback : Poco::trim(it->second);
}

/// How strictly a request asks for JSON, strictest first (issue 18 item 1).
enum class Form : int {
  SchemaAndNoThinking = 0,  ///< response_format json_schema + thinking-off fields
  ObjectAndNoThinking = 1,  ///< response_format json_object + thinking-off fields
  PlainAndNoThinking = 2,   ///< no response_format, thinking-off fields
  Plain = 3,                ///< neither (a server that refuses unknown fields)
};

/// One HTTP exchange's outcome.
struct Exchange {
  int status = 0;
  std::string contentType;
  std::string body;
};

/// An OpenAI-compatible server. Settings are fixed after configure(); the
/// remembered request form is atomic; each call opens its own
/// HTTPClientSession, so concurrent calls are safe.
class OpenAiBackend : public antidrift::Backend {
 public:
  std::string name() const override { return "openai"; }

  /// Reads "url" (default Ollama's http://127.0.0.1:11434/v1), "model"
  /// (required), "api_key_file" (optional; its first line is the key, read
  /// now, never logged), "timeout_s" (a cap on every call), "local_only" and
  /// "local_hosts" (privacy.*, passed by the daemon). Then asks `GET
  /// {url}/models` (at most 2 s): the model missing from an answering server
  /// throws; a server that does not answer is only logged (it may start after
  /// the daemon; the first call's error says so). Throws BackendError on a bad
  /// URL, a missing model name, an unreadable key file, a bad timeout, and a
  /// non-local URL under local_only.
  void configure(const std::map<std::string, std::string>& settings) override {
    try {
      configureOrThrow(settings);
    } catch (const BackendError&) {
      throw;
    } catch (const std::exception& e) {
      throw BackendError("openai: " + redact(e.what(), apiKey_));
    }
  }

  std::string complete(const std::string& prompt, std::int64_t timeoutMs) override {
    antidrift::Request request;
    request.prompt = prompt;
    request.timeoutMs = timeoutMs;
    return answer(request).text;
  }

  /// POSTs `{url}/chat/completions` with the prompt as the one user message,
  /// asking for JSON in the strictest form that has worked (answerSchema as a
  /// strict json_schema when given, else json_object, else plain) with
  /// thinking off; on a 400 it retries once per weaker form within the same
  /// deadline and remembers the form that worked. Returns the answer with any
  /// `<think>` block removed, and the server's usage (estimated when it
  /// reports none). Throws BackendError with one short sentence otherwise.
  antidrift::Completion answer(const antidrift::Request& request) override {
    try {
      return answerOrThrow(request);
    } catch (const BackendError&) {
      throw;
    } catch (const std::exception& e) {
      throw BackendError("openai: " + shorten(redact(e.what(), apiKey_)));
    }
  }

  /// "local <host>:<port>" for one of local_hosts, and for a loopback host
  /// once a listener there passed the owner check ("unchecked <host>:<port>"
  /// before); else "remote <host>" (docs/SECURITY.md N1).
  std::string destination() const override {
    std::lock_guard<std::mutex> lock(destinationMutex_);
    return destination_;
  }

 private:
  void configureOrThrow(const std::map<std::string, std::string>& settings) {
    const std::string url = setting(settings, "url", kDefaultUrl);
    try {
      uri_ = Poco::URI(url);
    } catch (const Poco::Exception&) {
      throw BackendError("openai: ai.openai.url \"" + url + "\" is not a URL");
    }
    if ((uri_.getScheme() != "http" && uri_.getScheme() != "https") || uri_.getHost().empty()) {
      throw BackendError("openai: ai.openai.url \"" + url +
                         "\" must be an http:// address such as " + kDefaultUrl);
    }
    if (uri_.getScheme() == "https") {
      // Poco::NetSSL is not linked: local servers speak plain HTTP.
      throw BackendError("openai: https is not supported; use a local http:// server");
    }
    basePath_ = uri_.getPath();
    while (!basePath_.empty() && basePath_.back() == '/') basePath_.pop_back();

    model_ = setting(settings, "model");
    if (model_.empty()) {
      throw BackendError("openai: set ai.openai.model to a model the server has");
    }

    const std::string keyFile = Poco::Path::expand(setting(settings, "api_key_file"));
    apiKey_.clear();
    if (!keyFile.empty()) {
      std::ifstream in(keyFile);
      if (!in) throw BackendError("openai: cannot read ai.openai.api_key_file " + keyFile);
      std::getline(in, apiKey_);
      apiKey_ = Poco::trim(apiKey_);
      if (apiKey_.empty())
        throw BackendError("openai: ai.openai.api_key_file " + keyFile + " is empty");
    }

    timeoutCapMs_ = 0;
    const std::string timeout = setting(settings, "timeout_s");
    if (!timeout.empty()) {
      try {
        std::size_t used = 0;
        const double seconds = std::stod(timeout, &used);
        if (used != timeout.size() || !(seconds > 0)) throw std::invalid_argument(timeout);
        timeoutCapMs_ = static_cast<std::int64_t>(seconds * 1000);
      } catch (const std::exception&) {
        throw BackendError("openai: timeout_s must be a positive number of seconds");
      }
    }

    trustedUsers_ = antidrift::parseUserList(
        setting(settings, "trusted_users", antidrift::kDefaultTrustedModelServerUsers));

    const std::string host = Poco::toLower(uri_.getHost());
    const std::vector<std::string> localHosts = hostList(setting(settings, "local_hosts"));
    const bool listed = std::find(localHosts.begin(), localHosts.end(), host) != localHosts.end();
    const bool local = listed || isLoopbackHost(host);
    // A loopback listener is "local" only once it passed the owner check
    // (send()); until then the page must not say titles stay on this machine.
    // A host the user listed in privacy.local_hosts is theirs by their word
    // (another machine's owner cannot be asked; one on this machine is still
    // checked on every connection).
    const std::string where = uri_.getHost() + ":" + std::to_string(uri_.getPort());
    {
      std::lock_guard<std::mutex> lock(destinationMutex_);
      destination_ = listed  ? "local " + where
                     : local ? "unchecked " + where
                             : "remote " + uri_.getHost();
    }
    if (setting(settings, "local_only") == "true" && !local) {
      throw BackendError("openai: privacy.local_only is on and " + uri_.getHost() +
                         " is not this machine; list it in privacy.local_hosts if it is yours");
    }
    form_.store(static_cast<int>(Form::SchemaAndNoThinking));
    probeModels();
  }

  void probeModels() {
    Exchange exchange;
    try {
      exchange =
          send("GET", "/models", "", Clock::now() + std::chrono::milliseconds(kProbeTimeoutMs),
               kMaxModelListBytes);
    } catch (const BackendError& e) {
      serverStatus_ = std::string("server not answering: ") + e.what();
      logger().warning("openai: " + serverStatus_ + "; the AI calls will fail until it answers");
      return;
    }
    if (exchange.status != 200) {
      // Some servers have no /models route; the first call will tell.
      serverStatus_ = "GET /models answered " + std::to_string(exchange.status);
      logger().warning("openai: " + serverStatus_ + "; model " + model_ + " not checked");
      return;
    }
    std::vector<std::string> ids;
    try {
      Poco::JSON::Parser parser;
      const auto object = parser.parse(exchange.body).extract<Poco::JSON::Object::Ptr>();
      const auto data = object->getArray("data");
      for (std::size_t i = 0; data && i < data->size(); ++i) {
        const auto model = data->getObject(static_cast<unsigned>(i));
        if (model && model->has("id")) ids.push_back(shorten(model->getValue<std::string>("id")));
      }
    } catch (const std::exception&) {
      serverStatus_ = "GET /models answered something that is not a model list";
      logger().warning("openai: " + serverStatus_);
      return;
    }
    if (std::find(ids.begin(), ids.end(), model_) == ids.end()) {
      std::string some;
      for (std::size_t i = 0; i < ids.size() && i < 5; ++i) some += (i ? ", " : "") + ids[i];
      throw BackendError("openai: model \"" + model_ + "\" is not on the server at " +
                         uri_.getHost() + ":" + std::to_string(uri_.getPort()) +
                         (some.empty() ? std::string(" (it has none)") : " (it has " + some + ")"));
    }
    serverStatus_ = "model " + model_ + " found";
    logger().information("openai: " + serverStatus_ + " at " + uri_.getHost() + ":" +
                         std::to_string(uri_.getPort()));
  }

  /// One HTTP exchange with `path` under the base URL, finished by `deadline`
  /// (a guard shuts the socket down then), its body read up to `maxBytes`.
  /// Before a byte is sent the listener's owner is checked (checkListenerOwner:
  /// this user, root or trusted_users; docs/SECURITY.md N1). Throws
  /// BackendError on a refused owner, connection and transport failures, a
  /// body over `maxBytes` and a body shorter than its Content-Length.
  Exchange send(const std::string& method, const std::string& path, const std::string& body,
                Clock::time_point deadline, std::int64_t maxBytes) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) throw BackendError("openai: " + timedOut(deadline));
    const Poco::Timespan timeout(static_cast<Poco::Timespan::TimeDiff>(left.count()) * 1000);
    Poco::Net::StreamSocket socket;
    try {
      socket.connect(Poco::Net::SocketAddress(uri_.getHost(), uri_.getPort()), timeout);
      // Headers and body go out in two writes: without TCP_NODELAY the body
      // waits for the server's delayed ACK (~40 ms a call on Linux).
      socket.setNoDelay(true);
      // HTTPSession::setTimeout reaches only sockets the session connects itself.
      socket.setSendTimeout(timeout);
      socket.setReceiveTimeout(timeout);
    } catch (const Poco::TimeoutException&) {
      throw BackendError("openai: " + timedOut(deadline));
    } catch (const Poco::Net::ConnectionRefusedException&) {
      throw BackendError("openai: no server answering at " + uri_.getHost() + ":" +
                         std::to_string(uri_.getPort()) + " (connection refused)");
    } catch (const Poco::Net::HostNotFoundException&) {
      throw BackendError("openai: host " + uri_.getHost() + " not found");
    } catch (const Poco::Net::NoAddressFoundException&) {
      throw BackendError("openai: host " + uri_.getHost() + " not found");
    } catch (const Poco::Exception& e) {
      throw BackendError("openai: cannot connect to " + uri_.getHost() + ":" +
                         std::to_string(uri_.getPort()) + " (" + shorten(e.displayText()) + ")");
    }
    const antidrift::ListenerOwner owner =
        antidrift::checkListenerOwner(static_cast<int>(socket.impl()->sockfd()), trustedUsers_);
    if (!owner.trusted) {
      const std::string where = uri_.getHost() + ":" + std::to_string(uri_.getPort());
      logger().warning("openai: refused " + where + ": " + owner.problem);
      throw BackendError("openai: refused " + where + ": " + owner.problem);
    }
    if (owner.local) markLocal();
    const DeadlineGuard guard(static_cast<int>(socket.impl()->sockfd()), deadline);
    Poco::Net::HTTPClientSession session(socket);
    session.setTimeout(timeout, timeout, timeout);
    session.setKeepAlive(false);
    Poco::Net::HTTPRequest request(method, basePath_ + path, Poco::Net::HTTPMessage::HTTP_1_1);
    request.setHost(uri_.getHost(), uri_.getPort());  // the session was made from a socket
    request.set("Accept", "application/json");
    if (!apiKey_.empty()) request.set("Authorization", "Bearer " + apiKey_);
    if (!body.empty()) {
      request.setContentType("application/json");
      request.setContentLength(static_cast<std::streamsize>(body.size()));
    }
    Exchange exchange;
    try {
      std::ostream& out = session.sendRequest(request);
      out << body;
      Poco::Net::HTTPResponse response;
      std::istream& in = session.receiveResponse(response);
      exchange.status = response.getStatus();
      exchange.contentType = response.getContentType();
      if (response.hasContentLength() && response.getContentLength64() > maxBytes) {
        throw BackendError("openai: the server's answer is " +
                           std::to_string(response.getContentLength64()) +
                           " bytes, more than the " + std::to_string(maxBytes) + " read");
      }
      char chunk[8192];
      while (in) {
        in.read(chunk, sizeof chunk);
        exchange.body.append(chunk, static_cast<std::size_t>(in.gcount()));
        if (static_cast<std::int64_t>(exchange.body.size()) > maxBytes) {
          throw BackendError("openai: the server's answer is longer than the " +
                             std::to_string(maxBytes) + " bytes read");
        }
      }
      if (guard.expired()) throw BackendError("openai: " + timedOut(deadline));
      if (response.hasContentLength() &&
          static_cast<std::int64_t>(exchange.body.size()) < response.getContentLength64()) {
        throw BackendError("openai: the server's answer was cut short (" +
                           std::to_string(exchange.body.size()) + " of " +
                           std::to_string(response.getContentLength64()) + " bytes)");
      }
    } catch (const BackendError&) {
      throw;
    } catch (const Poco::TimeoutException&) {
      throw BackendError("openai: " + timedOut(deadline));
    } catch (const Poco::Net::ConnectionRefusedException&) {
      throw BackendError("openai: no server answering at " + uri_.getHost() + ":" +
                         std::to_string(uri_.getPort()) + " (connection refused)");
    } catch (const Poco::Net::NoMessageException&) {
      if (guard.expired()) throw BackendError("openai: " + timedOut(deadline));
      throw BackendError("openai: the server closed the connection without answering");
    } catch (const Poco::Net::HostNotFoundException&) {
      throw BackendError("openai: host " + uri_.getHost() + " not found");
    } catch (const Poco::Exception& e) {
      if (guard.expired() || Clock::now() >= deadline)
        throw BackendError("openai: " + timedOut(deadline));
      throw BackendError("openai: the connection failed (" +
                         shorten(redact(e.displayText(), apiKey_)) + ")");
    }
    return exchange;
  }

  /// The listener passed the owner check: from now on it is "local".
  void markLocal() {
    std::lock_guard<std::mutex> lock(destinationMutex_);
    if (destination_.rfind("unchecked ", 0) != 0) return;
    destination_ = "local " + destination_.substr(10);
  }

  std::string timedOut(Clock::time_point) const {
    return "no answer in time from " + uri_.getHost();
  }

  /// The request body for `request` in `form`.
  std::string requestBody(const antidrift::Request& request, Form form) const {
    Poco::JSON::Object body;
    body.set("model", model_);
    Poco::JSON::Object message;
    message.set("role", "user");
    message.set("content", request.prompt);
    Poco::JSON::Array messages;
    messages.add(message);
    body.set("messages", messages);
    body.set("stream", false);
    body.set("temperature", 0);
    Poco::Dynamic::Var schema;
    if (form == Form::SchemaAndNoThinking && !request.answerSchema.empty()) {
      try {
        Poco::JSON::Parser parser;
        schema = parser.parse(request.answerSchema);
      } catch (const std::exception&) {
        logger().warning("openai: the " + request.role + " role's answer schema is not JSON");
      }
    }
    if (!schema.isEmpty()) {
      Poco::JSON::Object jsonSchema;
      jsonSchema.set("name",
                     request.role.empty() ? std::string("answer") : request.role + "_answer");
      jsonSchema.set("schema", schema);
      jsonSchema.set("strict", true);
      Poco::JSON::Object format;
      format.set("type", "json_schema");
      format.set("json_schema", jsonSchema);
      body.set("response_format", format);
    } else if (form == Form::SchemaAndNoThinking || form == Form::ObjectAndNoThinking) {
      Poco::JSON::Object format;
      format.set("type", "json_object");
      body.set("response_format", format);
    }
    if (form != Form::Plain) {
      // Thinking off where the server allows (docs/TECH-NOTES.md §8): Ollama
      // reads `think`, llama.cpp and vLLM pass chat_template_kwargs to the
      // template, OpenAI-style servers read reasoning_effort. Servers that do
      // not know a field ignore it; one that refuses it answers 400 and the
      // next form leaves them out.
      body.set("think", false);
      body.set("reasoning_effort", "low");
      Poco::JSON::Object kwargs;
      kwargs.set("enable_thinking", false);
      body.set("chat_template_kwargs", kwargs);
    }
    std::ostringstream out;
    body.stringify(out);
    return out.str();
  }

  /// The error message of a non-200 answer.
  std::string statusError(const Exchange& exchange) const {
    std::string what = "openai: the server answered " + std::to_string(exchange.status);
    if (exchange.contentType.find("html") != std::string::npos ||
        exchange.body.find("<html") != std::string::npos ||
        exchange.body.find("<!DOCTYPE") != std::string::npos) {
      return what + " with an HTML page";
    }
    try {
      Poco::JSON::Parser parser;
      const auto object = parser.parse(exchange.body).extract<Poco::JSON::Object::Ptr>();
      std::string detail;
      if (const auto error = object->getObject("error")) {
        detail = error->optValue<std::string>("message", "");
      } else if (object->has("error")) {
        detail = object->getValue<std::string>("error");
      }
      if (!detail.empty()) return what + ": " + shorten(redact(detail, apiKey_));
    } catch (const std::exception&) {
    }
    return what;
  }

  antidrift::Completion answerOrThrow(const antidrift::Request& request) {
    std::int64_t timeoutMs = request.timeoutMs > 0 ? request.timeoutMs : 30000;
    if (timeoutCapMs_ > 0) timeoutMs = std::min(timeoutMs, timeoutCapMs_);
    const Clock::time_point deadline = Clock::now() + std::chrono::milliseconds(timeoutMs);

    int form = form_.load();
    if (form == static_cast<int>(Form::SchemaAndNoThinking) && request.answerSchema.empty()) {
      form = static_cast<int>(Form::ObjectAndNoThinking);  // nothing stricter to ask
    }
    Exchange exchange;
    for (;;) {
      exchange = send("POST", "/chat/completions", requestBody(request, static_cast<Form>(form)),
                      deadline, kMaxAnswerBytes);
      if (exchange.status != 400 || form == static_cast<int>(Form::Plain)) break;
      logger().information("openai: the server refused request form " + std::to_string(form) +
                           " (" + statusError(exchange) + "); trying a plainer one");
      ++form;
    }
    if (exchange.status != 200) {
      const std::string message = statusError(exchange);
      logger().warning(message);
      throw BackendError(message);
    }
    // Remember a weaker form only when it worked (only ever step down).
    int remembered = form_.load();
    while (form > remembered && !form_.compare_exchange_weak(remembered, form)) {
    }

    Poco::JSON::Object::Ptr object;
    try {
      Poco::JSON::Parser parser;
      object = parser.parse(exchange.body).extract<Poco::JSON::Object::Ptr>();
    } catch (const std::exception&) {
      logger().warning("openai: the answer is not JSON: " + shorten(exchange.body));
      throw BackendError("openai: the server's answer is not JSON");
    }
    const auto choices = object->getArray("choices");
    const auto choice = choices && choices->size() > 0 ? choices->getObject(0) : nullptr;
    const auto message = choice ? choice->getObject("message") : nullptr;
    if (!message) throw BackendError("openai: the server's answer has no message");
    if (choice->optValue<std::string>("finish_reason", "") == "length") {
      throw BackendError("openai: the answer hit the model's token limit before it ended");
    }
    const std::string content = message->has("content") && message->get("content").isString()
                                    ? message->getValue<std::string>("content")
                                    : std::string();
    antidrift::Completion completion;
    completion.text = stripThinking(content);
    if (completion.text.empty()) throw BackendError("openai: the model's answer was empty");

    completion.usage = antidrift::estimateUsage(request.prompt, completion.text);
    if (const auto usage = object->getObject("usage")) {
      if (usage->has("prompt_tokens") && usage->has("completion_tokens")) {
        completion.usage.inputTokens = saturatedTokens(usage->get("prompt_tokens"));
        completion.usage.outputTokens = saturatedTokens(usage->get("completion_tokens"));
        completion.usage.estimated = false;
      }
    }
    return completion;
  }

  Poco::URI uri_;
  std::string basePath_;
  std::string model_;
  std::string apiKey_;  ///< never logged, never in a message (redact())
  std::int64_t timeoutCapMs_ = 0;
  std::vector<std::string> trustedUsers_;  ///< besides this user and root
  mutable std::mutex destinationMutex_;
  std::string destination_;  ///< guarded by destinationMutex_
  std::string serverStatus_;
  std::atomic<int> form_{0};  ///< the strictest Form that may work (only grows)
};

}  // namespace

ANTIDRIFT_DECLARE_BACKEND(OpenAiBackend)

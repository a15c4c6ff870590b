/// @file openai_stand_in.h
/// A stand-in OpenAI-compatible chat-completions server for tests (issue 18
/// item 5; docs/TECH-NOTES.md §8 "OpenAI-compatible local servers"): a real
/// Poco::Net::HTTPServer on an ephemeral loopback port that answers like
/// Ollama, llama.cpp's server or LM Studio would — and also like they do when
/// things go wrong. Used in-process by the openai plugin's unit tests and, via
/// the `openai_stand_in` executable (openai_stand_in_main.cpp), by end-to-end
/// tests, the latency bench and the daemon's `ai.backend = auto` tests.
///
/// Routes:
///  - `GET /v1/models`: the configured models, each also as `<model>@<mode>`
///    for every mode (so a test can choose the mode through `ai.openai.model`).
///  - `POST /v1/chat/completions`: answers in the request's mode — the suffix
///    of its model name after `@` (`stand-in@think`), else the server's mode.
///  - `POST /control` `{"mode": "...", "delay_ms": N, "off_task_words": [...]}`:
///    sets the server's mode and rule at run time; `GET /control/requests`:
///    every recorded request as a JSON array; `DELETE /control/requests`
///    forgets them.
///
/// Modes (kModes): well, slow (delay_ms, or `slow-<ms>` in the model name),
/// think (`<think>…</think>` before the JSON), reasoning (`reasoning_content`
/// beside the JSON), prose (prose around the JSON, no schema honoured),
/// error500 (500 with a JSON error), html (502 with an HTML page), truncated
/// (Content-Length longer than the body sent, then the connection closes),
/// close (the connection closes with no answer), length (finish_reason
/// "length" with a cut JSON), no_usage (no usage object), reject_schema (400 to
/// a json_schema response_format), reject_format (400 to any response_format),
/// reject_extras (400 to `think`, `reasoning_effort` or `chat_template_kwargs`,
/// as OpenAI's own API does), malformed (a 200 whose body is not JSON),
/// unauthorized (401 whose message echoes the Authorization header, as some
/// servers echo a wrong key).
///
/// "Well" answers follow each role's contract (core/src/ai/): the judge answers
/// on_task false with a reason naming the window when the window's title
/// contains one of the off-task words (case-insensitive), else on_task true;
/// the nudge answers on_track false when the prompt has one of them; the coach
/// and the reviewer answer fixed texts that say "stand-in".
///
/// Thread-safety: every public method may be called from any thread while the
/// server runs; the server handles requests on its own threads.
#pragma once

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>
#include <Poco/JSON/Stringifier.h>
#include <Poco/Net/HTTPRequestHandler.h>
#include <Poco/Net/HTTPRequestHandlerFactory.h>
#include <Poco/Net/HTTPServer.h>
#include <Poco/Net/HTTPServerParams.h>
#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerRequestImpl.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <Poco/Net/ServerSocket.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/Net/StreamSocket.h>
#include <Poco/StreamCopier.h>
#include <Poco/ThreadPool.h>

namespace antidrift::testing {

/// Every mode the stand-in knows, in the order `GET /v1/models` lists them.
inline const std::vector<std::string>& standInModes() {
  static const std::vector<std::string> modes = {
      "well",          "slow",          "think",     "reasoning",   "prose",    "error500",
      "html",          "truncated",     "close",     "length",      "no_usage", "reject_schema",
      "reject_format", "reject_extras", "malformed", "unauthorized"};
  return modes;
}

/// One request the stand-in received.
struct StandInRequest {
  std::string method;         ///< "GET", "POST", ...
  std::string path;           ///< e.g. "/v1/chat/completions"
  std::string authorization;  ///< the Authorization header, "" when absent
  std::string body;           ///< the raw request body
};

/// What the stand-in starts with.
struct StandInOptions {
  std::string mode = "well";                              ///< the server's mode (standInModes())
  std::vector<std::string> models = {"stand-in"};         ///< what GET /v1/models lists
  std::int64_t delayMs = 1500;                            ///< the "slow" mode's delay, milliseconds
  std::vector<std::string> offTaskWords = {"Solitaire"};  ///< the judge's and nudge's rule
  std::uint16_t port = 0;                                 ///< 0: an ephemeral port
};

/// The stand-in server. Starts listening on 127.0.0.1 in the constructor
/// (throws Poco::Net::NetException when it cannot bind); stops in the
/// destructor.
class OpenAiStandIn {
 public:
  explicit OpenAiStandIn(StandInOptions options = {})
      : state_(std::make_shared<State>(std::move(options))) {
    Poco::Net::ServerSocket socket(Poco::Net::SocketAddress("127.0.0.1", state_->options.port));
    auto* params = new Poco::Net::HTTPServerParams;
    params->setMaxThreads(16);
    params->setMaxQueued(64);
    params->setKeepAlive(true);
    pool_ = std::make_unique<Poco::ThreadPool>(2, 16);
    server_ = std::make_unique<Poco::Net::HTTPServer>(new Factory(state_), *pool_, socket, params);
    server_->start();
    port_ = socket.address().port();
  }

  ~OpenAiStandIn() { stop(); }
  OpenAiStandIn(const OpenAiStandIn&) = delete;
  OpenAiStandIn& operator=(const OpenAiStandIn&) = delete;

  /// Stops listening, closes every connection and joins every thread the
  /// server ran on (idempotent): none outlives the stand-in, so none races
  /// Poco's static pools at process exit (ThreadSanitizer saw one do so).
  void stop() {
    {
      std::lock_guard<std::mutex> lock(state_->mutex);
      state_->stopping = true;
    }
    state_->wake.notify_all();
    if (server_) {
      server_->stopAll(true);
      server_.reset();
    }
    if (pool_) {
      pool_->joinAll();  // every handler and the dispatcher have returned
      pool_->stopAll();  // and their threads have ended
      pool_.reset();
    }
  }

  /// The port it listens on (loopback).
  std::uint16_t port() const { return port_; }
  /// The base URL a client puts in `ai.openai.url`: "http://127.0.0.1:<port>/v1".
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/v1"; }

  /// Sets the server's mode (for requests whose model names none).
  void setMode(const std::string& mode) {
    std::lock_guard<std::mutex> lock(state_->mutex);
    state_->options.mode = mode;
  }
  /// Sets the "slow" mode's delay in milliseconds.
  void setDelayMs(std::int64_t delayMs) {
    std::lock_guard<std::mutex> lock(state_->mutex);
    state_->options.delayMs = delayMs;
  }
  /// Every request received so far, oldest first.
  std::vector<StandInRequest> requests() const {
    std::lock_guard<std::mutex> lock(state_->mutex);
    return state_->requests;
  }
  /// The recorded `POST /v1/chat/completions` bodies, oldest first.
  std::vector<std::string> completionBodies() const {
    std::vector<std::string> bodies;
    for (const StandInRequest& request : requests()) {
      if (request.path == "/v1/chat/completions") bodies.push_back(request.body);
    }
    return bodies;
  }
  /// Forgets the recorded requests.
  void clearRequests() {
    std::lock_guard<std::mutex> lock(state_->mutex);
    state_->requests.clear();
  }

 private:
  struct State {
    explicit State(StandInOptions o) : options(std::move(o)) {}
    mutable std::mutex mutex;
    StandInOptions options;
    std::vector<StandInRequest> requests;
    std::condition_variable wake;  ///< ends a "slow" answer's wait on stop()
    bool stopping = false;
  };

  static std::string lower(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return text;
  }

  /// The text between "<<<BEGIN label>>>\n" and "\n<<<END label>>>" (the
  /// roles' data fences, core/src/ai/prompt.cpp), "" when absent.
  static std::string fenced(const std::string& prompt, const std::string& label) {
    const std::string begin = "<<<BEGIN " + label + ">>>\n";
    const std::size_t start = prompt.find(begin);
    if (start == std::string::npos) return {};
    const std::size_t from = start + begin.size();
    const std::size_t end = prompt.find("\n<<<END " + label + ">>>", from);
    return end == std::string::npos ? std::string() : prompt.substr(from, end - from);
  }

  static std::string stringify(const Poco::Dynamic::Var& value) {
    std::ostringstream out;
    Poco::JSON::Stringifier::stringify(value, out);
    return out.str();
  }

  /// The role's JSON answer for `prompt` under the rule `words`.
  static std::string roleAnswer(const std::string& prompt, const std::vector<std::string>& words) {
    std::string role;
    if (prompt.rfind("ROLE: ", 0) == 0) {
      role = prompt.substr(6, prompt.find('\n') - 6);
    }
    auto hit = [&](const std::string& text) -> std::string {
      const std::string haystack = lower(text);
      for (const std::string& word : words) {
        if (!word.empty() && haystack.find(lower(word)) != std::string::npos) return word;
      }
      return {};
    };
    Poco::JSON::Object answer;
    if (role == "judge") {
      const std::string title = fenced(prompt, "title");
      const std::string word = hit(title);
      answer.set("on_task", word.empty());
      answer.set("reason", word.empty() ? std::string("The window fits the next action.")
                                        : "Stand-in rule: \"" + title + "\" is about " + word +
                                              ", not the next action.");
      answer.set("scope", "page");
    } else if (role == "nudge") {
      const std::string word = hit(prompt);
      answer.set("on_track", word.empty());
      answer.set("message",
                 word.empty() ? std::string() : "Stand-in nudge: " + word + " has taken over.");
    } else if (role == "coach") {
      answer.set("next_action", "Write the stand-in's first paragraph");
      answer.set("success_condition", "One paragraph is saved in the draft");
      answer.set("timebox_minutes", 20);
    } else if (role == "reviewer") {
      answer.set("recap", "Stand-in recap: you kept to the plan.");
      answer.set("carry_forward", "Stand-in: start with the hardest part next time.");
    } else {
      answer.set("answer", "stand-in");
    }
    return stringify(answer);
  }

  class Handler : public Poco::Net::HTTPRequestHandler {
   public:
    explicit Handler(std::shared_ptr<State> state) : state_(std::move(state)) {}

    void handleRequest(Poco::Net::HTTPServerRequest& request,
                       Poco::Net::HTTPServerResponse& response) override {
      // Like Go's and most servers: no Nagle delay between headers and body.
      static_cast<Poco::Net::HTTPServerRequestImpl&>(request).socket().setNoDelay(true);
      std::string body;
      Poco::StreamCopier::copyToString(request.stream(), body);
      const std::string path = request.getURI();
      {
        std::lock_guard<std::mutex> lock(state_->mutex);
        if (path.rfind("/control", 0) != 0) {
          state_->requests.push_back(
              {request.getMethod(), path, request.get("Authorization", ""), body});
        }
      }
      if (path == "/v1/models" && request.getMethod() == "GET") {
        models(response);
      } else if (path == "/v1/chat/completions" && request.getMethod() == "POST") {
        completion(request, response, body);
      } else if (path == "/control" && request.getMethod() == "POST") {
        control(response, body);
      } else if (path == "/control/requests") {
        requestsRoute(request, response);
      } else {
        sendJson(response, Poco::Net::HTTPResponse::HTTP_NOT_FOUND,
                 R"({"error":{"message":"no such route","type":"invalid_request_error"}})");
      }
    }

   private:
    static void sendJson(Poco::Net::HTTPServerResponse& response,
                         Poco::Net::HTTPResponse::HTTPStatus status, const std::string& json) {
      response.setStatus(status);
      response.setContentType("application/json");
      response.setContentLength(static_cast<std::streamsize>(json.size()));
      response.send() << json;
    }

    static void sendError(Poco::Net::HTTPServerResponse& response,
                          Poco::Net::HTTPResponse::HTTPStatus status, const std::string& message) {
      Poco::JSON::Object error;
      error.set("message", message);
      error.set("type", "invalid_request_error");
      Poco::JSON::Object outer;
      outer.set("error", error);
      sendJson(response, status, stringify(outer));
    }

    void models(Poco::Net::HTTPServerResponse& response) {
      std::vector<std::string> names;
      {
        std::lock_guard<std::mutex> lock(state_->mutex);
        names = state_->options.models;
      }
      Poco::JSON::Array data;
      for (const std::string& name : names) {
        auto add = [&](const std::string& id) {
          Poco::JSON::Object model;
          model.set("id", id);
          model.set("object", "model");
          model.set("created", 0);
          model.set("owned_by", "stand-in");
          data.add(model);
        };
        add(name);
        for (const std::string& mode : standInModes()) add(name + "@" + mode);
      }
      Poco::JSON::Object list;
      list.set("object", "list");
      list.set("data", data);
      sendJson(response, Poco::Net::HTTPResponse::HTTP_OK, stringify(list));
    }

    void control(Poco::Net::HTTPServerResponse& response, const std::string& body) {
      try {
        Poco::JSON::Parser parser;
        const auto object = parser.parse(body).extract<Poco::JSON::Object::Ptr>();
        std::lock_guard<std::mutex> lock(state_->mutex);
        if (object->has("mode")) state_->options.mode = object->getValue<std::string>("mode");
        if (object->has("delay_ms")) {
          state_->options.delayMs = object->getValue<std::int64_t>("delay_ms");
        }
        if (object->has("off_task_words")) {
          std::vector<std::string> words;
          const auto array = object->getArray("off_task_words");
          for (std::size_t i = 0; array && i < array->size(); ++i) {
            words.push_back(array->getElement<std::string>(static_cast<unsigned>(i)));
          }
          state_->options.offTaskWords = words;
        }
      } catch (const std::exception& e) {
        sendError(response, Poco::Net::HTTPResponse::HTTP_BAD_REQUEST,
                  std::string("bad control body: ") + e.what());
        return;
      }
      sendJson(response, Poco::Net::HTTPResponse::HTTP_OK, R"({"ok":true})");
    }

    void requestsRoute(Poco::Net::HTTPServerRequest& request,
                       Poco::Net::HTTPServerResponse& response) {
      std::lock_guard<std::mutex> lock(state_->mutex);
      if (request.getMethod() == "DELETE") {
        state_->requests.clear();
        response.setStatus(Poco::Net::HTTPResponse::HTTP_NO_CONTENT);
        response.setContentLength(0);
        response.send();
        return;
      }
      Poco::JSON::Array all;
      for (const StandInRequest& recorded : state_->requests) {
        Poco::JSON::Object item;
        item.set("method", recorded.method);
        item.set("path", recorded.path);
        item.set("authorization", recorded.authorization);
        item.set("body", recorded.body);
        all.add(item);
      }
      const std::string json = stringify(all);
      response.setContentType("application/json");
      response.setContentLength(static_cast<std::streamsize>(json.size()));
      response.send() << json;
    }

    void completion(Poco::Net::HTTPServerRequest& request, Poco::Net::HTTPServerResponse& response,
                    const std::string& body) {
      Poco::JSON::Object::Ptr object;
      try {
        Poco::JSON::Parser parser;
        object = parser.parse(body).extract<Poco::JSON::Object::Ptr>();
      } catch (const std::exception&) {
        sendError(response, Poco::Net::HTTPResponse::HTTP_BAD_REQUEST, "the body is not JSON");
        return;
      }
      StandInOptions options;
      {
        std::lock_guard<std::mutex> lock(state_->mutex);
        options = state_->options;
      }
      const std::string model = object->optValue<std::string>("model", "");
      std::string mode = options.mode;
      const std::size_t at = model.find('@');
      if (at != std::string::npos) mode = model.substr(at + 1);
      std::int64_t delayMs = options.delayMs;
      if (mode.rfind("slow-", 0) == 0) {
        delayMs = std::stoll(mode.substr(5));
        mode = "slow";
      }
      const std::string base = at == std::string::npos ? model : model.substr(0, at);
      if (std::find(options.models.begin(), options.models.end(), base) == options.models.end()) {
        sendError(response, Poco::Net::HTTPResponse::HTTP_NOT_FOUND,
                  "model \"" + model + "\" not found, try pulling it first");
        return;
      }

      std::string prompt;
      const auto messages = object->getArray("messages");
      for (std::size_t i = 0; messages && i < messages->size(); ++i) {
        const auto message = messages->getObject(static_cast<unsigned>(i));
        if (message && message->optValue<std::string>("role", "") == "user") {
          prompt = message->optValue<std::string>("content", "");
        }
      }
      const auto format = object->getObject("response_format");
      const std::string formatType = format ? format->optValue<std::string>("type", "") : "";

      if (mode == "reject_schema" && formatType == "json_schema") {
        sendError(response, Poco::Net::HTTPResponse::HTTP_BAD_REQUEST,
                  "response_format json_schema is not supported");
        return;
      }
      if (mode == "reject_format" && format) {
        sendError(response, Poco::Net::HTTPResponse::HTTP_BAD_REQUEST,
                  "response_format is not supported");
        return;
      }
      if (mode == "reject_extras") {
        for (const char* extra : {"think", "reasoning_effort", "chat_template_kwargs"}) {
          if (object->has(extra)) {
            sendError(response, Poco::Net::HTTPResponse::HTTP_BAD_REQUEST,
                      std::string("Unrecognized request argument supplied: ") + extra);
            return;
          }
        }
      }
      if (mode == "slow") {
        std::unique_lock<std::mutex> lock(state_->mutex);
        state_->wake.wait_for(lock, std::chrono::milliseconds(delayMs),
                              [this] { return state_->stopping; });
      }
      if (mode == "unauthorized") {
        sendError(response, Poco::Net::HTTPResponse::HTTP_UNAUTHORIZED,
                  "Incorrect API key provided: " + request.get("Authorization", ""));
        return;
      }
      if (mode == "error500") {
        sendJson(
            response, Poco::Net::HTTPResponse::HTTP_INTERNAL_SERVER_ERROR,
            R"({"error":{"message":"model runner has unexpectedly stopped","type":"server_error"}})");
        return;
      }
      if (mode == "html") {
        const std::string page =
            "<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad "
            "Gateway</h1><hr><center>nginx</center></body></html>";
        response.setStatus(Poco::Net::HTTPResponse::HTTP_BAD_GATEWAY);
        response.setContentType("text/html");
        response.setContentLength(static_cast<std::streamsize>(page.size()));
        response.send() << page;
        return;
      }
      if (mode == "close") {
        static_cast<Poco::Net::HTTPServerRequestImpl&>(request).socket().shutdown();
        response.setKeepAlive(false);
        return;
      }
      if (mode == "malformed") {
        sendJson(response, Poco::Net::HTTPResponse::HTTP_OK, "{\"choices\": [ {\"message\": ");
        return;
      }

      std::string content = roleAnswer(prompt, options.offTaskWords);
      std::string finish = "stop";
      Poco::JSON::Object message;
      message.set("role", "assistant");
      if (mode == "think") {
        content =
            "<think>\nThe person wants to focus. {\"on_task\": maybe}\n</think>\n\n" + content;
      } else if (mode == "prose") {
        content = "Sure! Here is my answer:\n```json\n" + content + "\n```\nHope this helps.";
      } else if (mode == "reasoning") {
        message.set("reasoning_content", "Let me think about the window {\"not\": \"this\"}.");
      } else if (mode == "length") {
        content = content.substr(0, content.size() / 2);
        finish = "length";
      }
      message.set("content", content);
      Poco::JSON::Object choice;
      choice.set("index", 0);
      choice.set("message", message);
      choice.set("finish_reason", finish);
      Poco::JSON::Array choices;
      choices.add(choice);
      Poco::JSON::Object answer;
      answer.set("id", "chatcmpl-stand-in");
      answer.set("object", "chat.completion");
      answer.set("created", 0);
      answer.set("model", model);
      answer.set("choices", choices);
      if (mode != "no_usage") {
        Poco::JSON::Object usage;
        const auto in = static_cast<std::int64_t>(body.size() / 4);
        const auto out = static_cast<std::int64_t>(content.size() / 4);
        usage.set("prompt_tokens", in);
        usage.set("completion_tokens", out);
        usage.set("total_tokens", in + out);
        answer.set("usage", usage);
      }
      const std::string json = stringify(answer);
      if (mode == "truncated") {
        response.setKeepAlive(false);
        response.setContentType("application/json");
        response.setContentLength(static_cast<std::streamsize>(json.size() + 200));
        std::ostream& out = response.send();
        out << json.substr(0, json.size() / 2);
        out.flush();
        static_cast<Poco::Net::HTTPServerRequestImpl&>(request).socket().shutdown();
        return;
      }
      sendJson(response, Poco::Net::HTTPResponse::HTTP_OK, json);
    }

    std::shared_ptr<State> state_;
  };

  class Factory : public Poco::Net::HTTPRequestHandlerFactory {
   public:
    explicit Factory(std::shared_ptr<State> state) : state_(std::move(state)) {}
    Poco::Net::HTTPRequestHandler* createRequestHandler(
        const Poco::Net::HTTPServerRequest&) override {
      return new Handler(state_);
    }

   private:
    std::shared_ptr<State> state_;
  };

  std::shared_ptr<State> state_;
  /// The server's own threads, not Poco's default pool (which lives until
  /// static destruction): stop() joins them. Declared before server_, which
  /// uses it.
  std::unique_ptr<Poco::ThreadPool> pool_;
  std::unique_ptr<Poco::Net::HTTPServer> server_;
  std::uint16_t port_ = 0;
};

}  // namespace antidrift::testing

// Fuzz target: the HTTP request handling of every route (docs/DESIGN.md §10,
// docs/API.md): the input is raw HTTP/1.1 — up to kMaxRequests pipelined
// requests, each a request line, headers and a body of its Content-Length
// (a chunked request takes the rest of the input) — parsed by Poco's own
// header reader and served in memory by HttpApi::handle on a fresh daemon
// stack (daemon_stack.h). Properties: handle() never throws and never answers
// 500 (bad input is the client's error, a 4xx); every 4xx and 5xx answer is a
// JSON object with an "error" sentence (docs/API.md §2).
#include <cstddef>
#include <cstdint>
#include <istream>
#include <sstream>
#include <streambuf>
#include <string>

#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>
#include <Poco/Logger.h>
#include <Poco/Net/HTTPServerParams.h>
#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <Poco/Net/SocketAddress.h>

#include "fuzz/daemon_stack.h"
#include "fuzz/fuzz_check.h"

using namespace antidrift;
using Poco::Net::HTTPServerParams;
using Poco::Net::HTTPServerRequest;
using Poco::Net::HTTPServerResponse;
using Poco::Net::SocketAddress;

namespace {

/// At most this many requests are served per input.
constexpr int kMaxRequests = 8;

/// Collects what a response sends. Its first flush succeeds and every later
/// one fails, like a client that read one event and hung up: an SSE stream
/// (GET /events) then ends after its first event instead of waiting forever.
class OneFlushBuffer final : public std::stringbuf {
 protected:
  int sync() override { return ++flushes_ > 1 ? -1 : 0; }

 private:
  int flushes_ = 0;
};

/// An HTTPServerResponse that keeps the body in memory.
class MemoryResponse final : public HTTPServerResponse {
 public:
  MemoryResponse() : out_(&buffer_) {}
  void sendContinue() override {}
  std::ostream& send() override {
    sent_ = true;
    return out_;
  }
  void sendFile(const std::string&, const std::string&) override { sent_ = true; }
  void sendBuffer(const void* data, std::size_t length) override {
    sent_ = true;
    out_.write(static_cast<const char*>(data), static_cast<std::streamsize>(length));
  }
  void redirect(const std::string&, HTTPStatus status) override {
    setStatusAndReason(status);
    sent_ = true;
  }
  void requireAuthentication(const std::string&) override { sent_ = true; }
  bool sent() const override { return sent_; }
  /// What was sent as the body.
  std::string body() const { return buffer_.str(); }

 private:
  OneFlushBuffer buffer_;
  std::ostream out_;
  bool sent_ = false;
};

/// An HTTPServerRequest read from raw bytes: Poco's HTTPRequest::read parses
/// the request line and headers from `in` (throwing Poco::Net::MessageException
/// on malformed ones, which the real server answers itself); the body is the
/// next Content-Length bytes, or the rest of `in` when chunked.
class MemoryRequest final : public HTTPServerRequest {
 public:
  MemoryRequest(std::istream& in, HTTPServerResponse& response)
      : response_(response), params_(new HTTPServerParams) {
    read(in);
    std::string body;
    if (getChunkedTransferEncoding()) {
      body.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    } else if (hasContentLength() && getContentLength64() > 0 &&
               getContentLength64() <= static_cast<Poco::Int64>(http::kMaxBodyBytes)) {
      body.resize(static_cast<std::size_t>(getContentLength64()));
      in.read(body.data(), static_cast<std::streamsize>(body.size()));
      body.resize(static_cast<std::size_t>(in.gcount()));
    }
    body_.str(body);
  }
  std::istream& stream() override { return body_; }
  const SocketAddress& clientAddress() const override { return client_; }
  const SocketAddress& serverAddress() const override { return server_; }
  const HTTPServerParams& serverParams() const override { return *params_; }
  HTTPServerResponse& response() const override { return response_; }
  bool secure() const override { return false; }

 private:
  HTTPServerResponse& response_;
  HTTPServerParams::Ptr params_;
  std::istringstream body_;
  SocketAddress client_{"127.0.0.1", 40000};
  SocketAddress server_{"127.0.0.1", 7717};
};

/// Checks the documented shape of an error answer.
void checkAnswer(const MemoryResponse& response) {
  const int status = static_cast<int>(response.getStatus());
  fuzz::check(status != 500, "bad input is answered 4xx, never 500 (docs/API.md §2)");
  if (status < 400) return;
  Poco::Dynamic::Var parsed;
  try {
    parsed = Poco::JSON::Parser().parse(response.body());
  } catch (const std::exception&) {
    fuzz::check(false, "an error answer is JSON (docs/API.md §2)");
  }
  const auto object = parsed.extract<Poco::JSON::Object::Ptr>();
  fuzz::check(object && object->has("error") && object->get("error").isString(),
              "an error answer is {\"error\": sentence} (docs/API.md §2)");
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // A 500 is reported by the property check; the log line adds nothing.
  Poco::Logger::root().setLevel(Poco::Message::PRIO_FATAL);
  Poco::Logger::get("antidrift.http").setLevel(Poco::Message::PRIO_FATAL);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::DaemonStack stack(ANTIDRIFT_WWW_DIR);
  std::istringstream in(std::string(fuzz::asText(data, size)));
  for (int served = 0; served < kMaxRequests && in.peek() != std::char_traits<char>::eof();
       ++served) {
    MemoryResponse response;
    std::unique_ptr<MemoryRequest> request;
    try {
      request = std::make_unique<MemoryRequest>(in, response);
    } catch (const Poco::Exception&) {
      return 0;  // not HTTP: Poco's server answers 400 before our code runs
    }
    try {
      stack.api().handle(*request, response);
    } catch (...) {
      fuzz::check(false, "HttpApi::handle never throws (http_api.h)");
    }
    checkAnswer(response);
    stack.settle();
  }
  return 0;
}

/// @file rest_client.h
/// A keep-alive REST client of the daemon for the test tools (the crash loop,
/// the load and churn tool): POSTs carry JSON and the token. One thread per
/// client. On Poco's HTTPClientSession.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/StreamCopier.h>

namespace antidrift::test {

/// One HTTP answer: status and body.
struct Answer {
  int status = 0;
  std::string body;
};

/// A keep-alive connection to the daemon on 127.0.0.1:`port`.
class RestClient {
 public:
  /// `token`: sent as X-AntiDrift-Token on POSTs; `timeoutSecs`: per send and receive.
  RestClient(std::uint16_t port, std::string token, int timeoutSecs = 10)
      : session_("127.0.0.1", port), token_(std::move(token)) {
    session_.setKeepAlive(true);
    session_.setTimeout(Poco::Timespan(timeoutSecs, 0));
  }

  /// Sends one request (a POST with `body` as JSON and the token; other
  /// methods without a body) and reads the whole answer. Throws
  /// Poco::Exception on a connection error (the daemon is gone, a timeout);
  /// the next call reconnects.
  Answer call(const std::string& method, const std::string& path, const std::string& body = "{}") {
    Poco::Net::HTTPRequest request(method, path, Poco::Net::HTTPMessage::HTTP_1_1);
    request.setKeepAlive(true);
    const bool post = method == "POST";
    if (post) {
      request.setContentType("application/json");
      request.setContentLength64(static_cast<Poco::Int64>(body.size()));
      request.set("X-AntiDrift-Token", token_);
    }
    try {
      session_.sendRequest(request) << (post ? body : std::string());
      Poco::Net::HTTPResponse response;
      std::istream& in = session_.receiveResponse(response);
      Answer answer;
      answer.status = static_cast<int>(response.getStatus());
      Poco::StreamCopier::copyToString(in, answer.body);
      return answer;
    } catch (const Poco::Exception&) {
      session_.reset();
      throw;
    }
  }

 private:
  Poco::Net::HTTPClientSession session_;
  std::string token_;
};

}  // namespace antidrift::test

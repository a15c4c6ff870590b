// Tests of the stand-in OpenAI-compatible server itself (tests/support/openai_stand_in.h,
// issue 18 item 5): what each mode puts on the wire, over real HTTP on loopback.

#include <string>

#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>
#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/Net/NetException.h>
#include <Poco/StreamCopier.h>
#include <gtest/gtest.h>

#include "support/openai_stand_in.h"

namespace antidrift::testing {
namespace {

struct Reply {
  int status = 0;
  std::string body;
  std::streamsize contentLength = -1;
};

Reply call(const OpenAiStandIn& server, const std::string& method, const std::string& path,
           const std::string& body = "") {
  Poco::Net::HTTPClientSession session("127.0.0.1", server.port());
  session.setTimeout(Poco::Timespan(5, 0));
  Poco::Net::HTTPRequest request(method, path, Poco::Net::HTTPMessage::HTTP_1_1);
  request.setContentType("application/json");
  request.setContentLength(static_cast<std::streamsize>(body.size()));
  request.set("Authorization", "Bearer k");
  session.sendRequest(request) << body;
  Poco::Net::HTTPResponse response;
  std::istream& in = session.receiveResponse(response);
  Reply reply;
  reply.status = response.getStatus();
  reply.contentLength = response.getContentLength();
  Poco::StreamCopier::copyToString(in, reply.body);
  return reply;
}

std::string chat(const std::string& model, const std::string& prompt) {
  Poco::JSON::Object message;
  message.set("role", "user");
  message.set("content", prompt);
  Poco::JSON::Array messages;
  messages.add(message);
  Poco::JSON::Object body;
  body.set("model", model);
  body.set("messages", messages);
  std::ostringstream out;
  body.stringify(out);
  return out.str();
}

const char* kJudgePrompt =
    "ROLE: judge\n...\n<<<BEGIN title>>>\nSolitaire - Klondike\n<<<END title>>>\n";

std::string content(const std::string& body) {
  Poco::JSON::Parser parser;
  const auto object = parser.parse(body).extract<Poco::JSON::Object::Ptr>();
  return object->getArray("choices")->getObject(0)->getObject("message")->getValue<std::string>(
      "content");
}

TEST(OpenAiStandIn, ListsItsModelsWithEveryMode) {
  OpenAiStandIn server;
  const Reply reply = call(server, "GET", "/v1/models");
  EXPECT_EQ(reply.status, 200);
  EXPECT_NE(reply.body.find("\"id\":\"stand-in\""), std::string::npos);
  EXPECT_NE(reply.body.find("\"id\":\"stand-in@think\""), std::string::npos);
}

TEST(OpenAiStandIn, JudgeRuleNamesTheWindowAndRecordsTheRequest) {
  OpenAiStandIn server;
  const std::string body = chat("stand-in", kJudgePrompt);
  const Reply reply = call(server, "POST", "/v1/chat/completions", body);
  ASSERT_EQ(reply.status, 200);
  EXPECT_NE(content(reply.body).find("\"on_task\":false"), std::string::npos);
  EXPECT_NE(content(reply.body).find("Solitaire - Klondike"), std::string::npos);
  const auto bodies = server.completionBodies();
  ASSERT_EQ(bodies.size(), 1u);
  EXPECT_EQ(bodies[0], body);
  EXPECT_EQ(server.requests()[0].authorization, "Bearer k");

  const Reply onTask =
      call(server, "POST", "/v1/chat/completions",
           chat("stand-in", "ROLE: judge\n<<<BEGIN title>>>\nmain.cpp\n<<<END title>>>\n"));
  EXPECT_NE(content(onTask.body).find("\"on_task\":true"), std::string::npos);
}

TEST(OpenAiStandIn, ModeFromTheModelNameOrTheControlRoute) {
  OpenAiStandIn server;
  EXPECT_EQ(
      call(server, "POST", "/v1/chat/completions", chat("stand-in@error500", kJudgePrompt)).status,
      500);
  EXPECT_EQ(call(server, "POST", "/control", R"({"mode":"html"})").status, 200);
  const Reply html = call(server, "POST", "/v1/chat/completions", chat("stand-in", kJudgePrompt));
  EXPECT_EQ(html.status, 502);
  EXPECT_NE(html.body.find("<html>"), std::string::npos);
  EXPECT_EQ(call(server, "POST", "/v1/chat/completions", chat("other", kJudgePrompt)).status, 404);
}

TEST(OpenAiStandIn, TruncatedBodyIsShorterThanItsContentLength) {
  OpenAiStandIn server;
  const Reply reply =
      call(server, "POST", "/v1/chat/completions", chat("stand-in@truncated", kJudgePrompt));
  EXPECT_EQ(reply.status, 200);
  EXPECT_LT(static_cast<std::streamsize>(reply.body.size()), reply.contentLength);
}

TEST(OpenAiStandIn, CloseModeSendsNothing) {
  OpenAiStandIn server;
  EXPECT_ANY_THROW(
      call(server, "POST", "/v1/chat/completions", chat("stand-in@close", kJudgePrompt)));
}

TEST(OpenAiStandIn, ThinkAndLengthModesShapeTheContent) {
  OpenAiStandIn server;
  const Reply think =
      call(server, "POST", "/v1/chat/completions", chat("stand-in@think", kJudgePrompt));
  EXPECT_EQ(content(think.body).rfind("<think>", 0), 0u);
  const Reply length =
      call(server, "POST", "/v1/chat/completions", chat("stand-in@length", kJudgePrompt));
  EXPECT_NE(length.body.find("\"finish_reason\":\"length\""), std::string::npos);
  const Reply noUsage =
      call(server, "POST", "/v1/chat/completions", chat("stand-in@no_usage", kJudgePrompt));
  EXPECT_EQ(noUsage.body.find("\"usage\""), std::string::npos);
  EXPECT_NE(think.body.find("\"prompt_tokens\""), std::string::npos);
}

}  // namespace
}  // namespace antidrift::testing

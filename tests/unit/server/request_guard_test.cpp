#include "server/request_guard.h"

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <Poco/Net/HTTPRequest.h>

namespace antidrift {
namespace {

using ::testing::HasSubstr;

const std::string kToken = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

RequestHeaders validPost() {
  RequestHeaders headers;
  headers.host = "127.0.0.1:7717";
  headers.contentType = "application/json";
  headers.token = kToken;
  return headers;
}

TEST(RequestGuardHost, AcceptsLoopbackNamesWithAndWithoutPort) {
  for (const char* host : {"127.0.0.1", "127.0.0.1:7717", "localhost", "localhost:1",
                           "LOCALHOST:65535", "[::1]", "[::1]:7717"}) {
    EXPECT_TRUE(RequestGuard::isLoopbackHost(host)) << host;
  }
}

TEST(RequestGuardHost, RefusesOtherNamesAndMalformedPorts) {
  for (const char* host :
       {"", "evil.example", "evil.example:7717", "127.0.0.1.evil.example", "localhost.evil.example",
        "127.0.0.2:7717", "0.0.0.0:7717", "192.168.1.10:7717", "::1", "[::1", "[::2]:7717",
        "localhost:", "localhost:0", "localhost:65536", "localhost:77a", "localhost:7717:1",
        "[::1]x", "user@localhost"}) {
    EXPECT_FALSE(RequestGuard::isLoopbackHost(host)) << host;
  }
}

TEST(RequestGuardHost, CheckHostAnswers403ForForeignOrMissingHost) {
  const RequestGuard guard(kToken);
  RequestHeaders headers;
  auto missing = guard.checkHost(headers);
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 403);

  headers.host = "rebind.attacker.example:7717";
  auto foreign = guard.checkHost(headers);
  ASSERT_TRUE(foreign);
  EXPECT_EQ(foreign->status, 403);
  EXPECT_THAT(foreign->message, HasSubstr("Host"));

  headers.host = "localhost:7717";
  EXPECT_FALSE(guard.checkHost(headers));
}

TEST(RequestGuardOrigin, SameOriginMatchesSchemeHostAndPort) {
  EXPECT_TRUE(RequestGuard::isSameOrigin("http://127.0.0.1:7717", "127.0.0.1:7717"));
  EXPECT_TRUE(RequestGuard::isSameOrigin("HTTP://LocalHost:7717", "localhost:7717"));
  EXPECT_TRUE(RequestGuard::isSameOrigin("http://localhost", "localhost:80"));
  EXPECT_TRUE(RequestGuard::isSameOrigin("http://[::1]:7717", "[::1]:7717"));

  EXPECT_FALSE(RequestGuard::isSameOrigin("null", "127.0.0.1:7717"));
  EXPECT_FALSE(RequestGuard::isSameOrigin("https://127.0.0.1:7717", "127.0.0.1:7717"));
  EXPECT_FALSE(RequestGuard::isSameOrigin("http://127.0.0.1:7718", "127.0.0.1:7717"));
  EXPECT_FALSE(RequestGuard::isSameOrigin("http://localhost:7717", "127.0.0.1:7717"));
  EXPECT_FALSE(RequestGuard::isSameOrigin("http://evil.example", "127.0.0.1:7717"));
  EXPECT_FALSE(RequestGuard::isSameOrigin("http://127.0.0.1:7717/", "127.0.0.1:7717"));
  EXPECT_FALSE(RequestGuard::isSameOrigin("http://", "127.0.0.1:7717"));
}

TEST(RequestGuardContentType, OnlyApplicationJsonWithOptionalParameters) {
  EXPECT_TRUE(RequestGuard::isJsonContentType("application/json"));
  EXPECT_TRUE(RequestGuard::isJsonContentType("Application/JSON; charset=utf-8"));
  EXPECT_TRUE(RequestGuard::isJsonContentType(" application/json ;charset=UTF-8"));
  EXPECT_FALSE(RequestGuard::isJsonContentType(""));
  EXPECT_FALSE(RequestGuard::isJsonContentType("text/plain"));
  EXPECT_FALSE(RequestGuard::isJsonContentType("application/x-www-form-urlencoded"));
  EXPECT_FALSE(RequestGuard::isJsonContentType("multipart/form-data; boundary=x"));
  EXPECT_FALSE(RequestGuard::isJsonContentType("application/jsonp"));
}

TEST(RequestGuardMutating, AcceptsAValidRequestWithOrWithoutSameOrigin) {
  const RequestGuard guard(kToken);
  RequestHeaders headers = validPost();
  EXPECT_FALSE(guard.checkMutating(headers));
  headers.origin = "http://127.0.0.1:7717";
  EXPECT_FALSE(guard.checkMutating(headers));
}

TEST(RequestGuardMutating, CrossOriginIs403) {
  const RequestGuard guard(kToken);
  RequestHeaders headers = validPost();
  headers.origin = "http://evil.example";
  const auto rejection = guard.checkMutating(headers);
  ASSERT_TRUE(rejection);
  EXPECT_EQ(rejection->status, 403);
  EXPECT_THAT(rejection->message, HasSubstr("cross-origin"));
}

TEST(RequestGuardMutating, MissingTokenIs401AndWrongTokenIs403) {
  const RequestGuard guard(kToken);
  RequestHeaders headers = validPost();
  headers.token.reset();
  auto missing = guard.checkMutating(headers);
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 401);
  EXPECT_THAT(missing->message, HasSubstr("X-AntiDrift-Token"));

  headers.token = "";
  ASSERT_TRUE(guard.checkMutating(headers));
  EXPECT_EQ(guard.checkMutating(headers)->status, 401);

  for (const std::string& wrong :
       {kToken.substr(0, 63), kToken + "0", std::string(64, '0'), std::string("x")}) {
    headers.token = wrong;
    const auto rejection = guard.checkMutating(headers);
    ASSERT_TRUE(rejection) << wrong;
    EXPECT_EQ(rejection->status, 403) << wrong;
  }
}

TEST(RequestGuardMutating, AReplacedTokenIsRefusedInEveryHeaderAndTheNewOneAccepted) {
  // POST /token/rotate (issue 19 item 7): the old token stops working at once.
  RequestGuard guard(kToken);
  const std::string fresh(64, 'b');
  guard.replaceToken(fresh);
  EXPECT_EQ(guard.token(), fresh);
  RequestHeaders headers = validPost();
  const auto old = guard.checkMutating(headers);
  ASSERT_TRUE(old);
  EXPECT_EQ(old->status, 403);
  EXPECT_THAT(old->message, HasSubstr("if the token was rotated: reload the page"));
  headers.token.reset();
  headers.authorization = "Bearer " + kToken;
  ASSERT_TRUE(guard.checkMutating(headers));
  EXPECT_EQ(guard.checkMutating(headers)->status, 403);
  ASSERT_TRUE(guard.checkActivityWatch(headers, false));
  headers.authorization = "Bearer " + fresh;
  EXPECT_FALSE(guard.checkMutating(headers));
  EXPECT_FALSE(guard.checkActivityWatch(headers, false));
  headers.authorization.reset();
  headers.token = fresh;
  EXPECT_FALSE(guard.checkMutating(headers));
  EXPECT_THROW(guard.replaceToken(""), std::invalid_argument);
  EXPECT_EQ(guard.token(), fresh);
}

TEST(RequestGuardMutating, WrongContentTypeIs415AfterTheTokenCheck) {
  const RequestGuard guard(kToken);
  RequestHeaders headers = validPost();
  headers.contentType = "text/plain";
  auto rejection = guard.checkMutating(headers);
  ASSERT_TRUE(rejection);
  EXPECT_EQ(rejection->status, 415);

  headers.contentType.reset();
  ASSERT_TRUE(guard.checkMutating(headers));
  EXPECT_EQ(guard.checkMutating(headers)->status, 415);

  // Without the token the client learns nothing more than 401.
  headers.token.reset();
  EXPECT_EQ(guard.checkMutating(headers)->status, 401);
}

TEST(RequestGuardMutating, TheTokenMayComeAsAnAuthorizationBearer) {
  // Issue 16 item 4: ActivityWatch's opt-in API key header carries the same token.
  const RequestGuard guard(kToken);
  RequestHeaders headers = validPost();
  headers.token.reset();
  headers.authorization = "Bearer " + kToken;
  EXPECT_FALSE(guard.checkMutating(headers));
  headers.authorization = "bearer   " + kToken + " ";
  EXPECT_FALSE(guard.checkMutating(headers));
  const std::vector<std::string> wrongOnes = {"Bearer " + kToken.substr(1),
                                              "Bearer x",
                                              "Basic " + kToken,
                                              "Bearer",
                                              "Bearer ",
                                              "Bearer" + kToken,
                                              kToken};
  for (const std::string& wrong : wrongOnes) {
    headers.authorization = wrong;
    const auto rejection = guard.checkMutating(headers);
    ASSERT_TRUE(rejection) << wrong;
    EXPECT_EQ(rejection->status, 403) << wrong;
    EXPECT_THAT(rejection->message, HasSubstr("Authorization")) << wrong;
  }
  // Both sent: each must be right.
  headers.token = kToken;
  headers.authorization = "Bearer nope";
  ASSERT_TRUE(guard.checkMutating(headers));
  EXPECT_EQ(guard.checkMutating(headers)->status, 403);
  headers.authorization = "Bearer " + kToken;
  EXPECT_FALSE(guard.checkMutating(headers));
}

TEST(RequestGuardActivityWatch, ABrowserExtensionsOriginIsAllowedAWebPagesIsNot) {
  const RequestGuard guard(kToken);
  RequestHeaders headers;
  headers.host = "127.0.0.1:5600";
  headers.contentType = "application/json";
  EXPECT_FALSE(guard.checkActivityWatch(headers, true));  // aw-client: no Origin
  for (const char* origin :
       {"moz-extension://0b2a1c4e-7d3f-4c55-9d1e-2f6a8b9c0d1e",
        "chrome-extension://nglaklhklhcoonedhgnpgddginnjdadi",
        "safari-web-extension://ABCDEF12-3456-7890-ABCD-EF1234567890", "Moz-Extension://abc"}) {
    headers.origin = origin;
    EXPECT_FALSE(guard.checkActivityWatch(headers, true)) << origin;
    EXPECT_FALSE(guard.checkActivityWatch(headers, false)) << origin;
  }
  for (const char* origin :
       {"http://127.0.0.1:5600", "https://evil.example", "null", "moz-extension://",
        "chrome-extension://abc/page.html", "chrome-extension://abc@evil.example",
        "moz-extension:abc", "x-moz-extension://abc"}) {
    headers.origin = origin;
    const auto rejection = guard.checkActivityWatch(headers, false);
    ASSERT_TRUE(rejection) << origin;
    EXPECT_EQ(rejection->status, 403) << origin;
  }
}

TEST(RequestGuardActivityWatch, AnAuthorizationSentMustBeTheTokenAsBearer) {
  const RequestGuard guard(kToken);
  RequestHeaders headers;
  headers.host = "127.0.0.1:5600";
  headers.contentType = "application/json";
  headers.origin = "chrome-extension://nglaklhklhcoonedhgnpgddginnjdadi";
  headers.authorization = "Bearer " + kToken;
  EXPECT_FALSE(guard.checkActivityWatch(headers, true));
  for (const char* wrong : {"Bearer another-aw-server-key", "Basic dXNlcjpwYXNz", "Bearer"}) {
    headers.authorization = wrong;
    const auto rejection = guard.checkActivityWatch(headers, true);
    ASSERT_TRUE(rejection) << wrong;
    EXPECT_EQ(rejection->status, 403) << wrong;
    EXPECT_THAT(rejection->message, HasSubstr("Authorization")) << wrong;
  }
}

TEST(RequestGuard, RefusesAnEmptyToken) {
  EXPECT_THROW(RequestGuard(""), std::invalid_argument);
}

}  // namespace
}  // namespace antidrift

namespace antidrift {
namespace {

TEST(RequestGuardHost, AHeaderSentTwiceIs400WhicheverCopyWouldPass) {
  for (const char* name : {"Host", "host", "Origin", "Content-Type", "Content-Length",
                           "Transfer-Encoding", "X-AntiDrift-Token", "Authorization"}) {
    Poco::Net::HTTPRequest request("POST", "/planning");
    request.add("Host", "127.0.0.1:7717");
    request.add(name, "evil.example");
    if (std::string(name) != "Host" && std::string(name) != "host") {
      request.add(name, "evil.example");
    }
    const RequestHeaders headers = RequestHeaders::from(request);
    ASSERT_TRUE(headers.ambiguity) << name;
    const auto rejection = RequestGuard(kToken).checkHost(headers);
    ASSERT_TRUE(rejection) << name;
    EXPECT_EQ(rejection->status, 400);
    EXPECT_THAT(rejection->message, HasSubstr("more than one"));
  }
  Poco::Net::HTTPRequest single("POST", "/planning");
  single.add("Host", "127.0.0.1:7717");
  single.add("Origin", "http://127.0.0.1:7717");
  EXPECT_FALSE(RequestHeaders::from(single).ambiguity);
  single.add("Content-Length", "2");
  single.add("Transfer-Encoding", "chunked");
  const auto both = RequestGuard(kToken).checkHost(RequestHeaders::from(single));
  ASSERT_TRUE(both);
  EXPECT_EQ(both->status, 400);
  EXPECT_THAT(both->message, HasSubstr("both Content-Length and Transfer-Encoding"));
}

}  // namespace
}  // namespace antidrift

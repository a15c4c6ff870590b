#include "server/http/body.h"

#include <Poco/JSON/Array.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "server/http/responses.h"

namespace antidrift::http {
namespace {

using ::testing::HasSubstr;

/// The BadRequest sentence parseJsonBody gives for `text`, "" when it parses.
std::string problemOf(const std::string& text, BodyShape shape) {
  try {
    parseJsonBody(text, shape);
  } catch (const BadRequest& error) {
    return error.what();
  }
  return "";
}

TEST(HttpBody, AnEmptyObjectBodyIsAnEmptyObject) {
  const Poco::JSON::Object::Ptr object = parseObject("  \r\n");
  ASSERT_TRUE(object);
  EXPECT_EQ(object->size(), 0u);
}

// Issue 17 item 4: unknown fields are refused with the nearest known one.
TEST(HttpBody, UnknownFieldsAreRefusedNamingTheNearestKnownField) {
  const auto body = parseObject(R"({"next_action":"a","allowed_app":["code"]})");
  try {
    refuseUnknownFields(*body, {"next_action", "success_condition", "allowed_apps"});
    ADD_FAILURE() << "allowed_app was taken";
  } catch (const BadRequest& error) {
    EXPECT_STREQ(error.what(), R"(unknown field "allowed_app"; did you mean "allowed_apps"?)");
  }
  EXPECT_NO_THROW(refuseUnknownFields(*body, {"next_action", "allowed_app"}));
  EXPECT_NO_THROW(refuseUnknownFields(*parseObject("{}"), {}));
  EXPECT_THROW(refuseUnknownFields(*parseObject(R"({"x":1})"), {}), BadRequest);
}

TEST(HttpBody, ObjectShapeRefusesArraysAndScalars) {
  for (const char* text : {"[1]", "\"x\"", "null", "3"}) {
    EXPECT_EQ(problemOf(text, BodyShape::Object), "the request body must be a JSON object") << text;
  }
}

TEST(HttpBody, ObjectOrArrayShapeTakesBothAndRefusesEmptyAndScalars) {
  EXPECT_EQ(problemOf(R"([{"a":1}])", BodyShape::ObjectOrArray), "");
  EXPECT_EQ(problemOf(R"({"a":1})", BodyShape::ObjectOrArray), "");
  EXPECT_THAT(problemOf(" ", BodyShape::ObjectOrArray), HasSubstr("the request body is empty"));
  EXPECT_EQ(problemOf("true", BodyShape::ObjectOrArray),
            "the request body must be a JSON object or array");
}

TEST(HttpBody, MalformedJsonAndInvalidUtf8AreSentences) {
  EXPECT_EQ(problemOf("{oops", BodyShape::Object), "malformed JSON: unexpected byte 'o' in value");
  EXPECT_THAT(problemOf("[1,", BodyShape::ObjectOrArray), HasSubstr("malformed JSON"));
  EXPECT_EQ(problemOf("{\"a\":\"\xff\"}", BodyShape::Object),
            "the request body is not valid UTF-8");
  EXPECT_EQ(problemOf(R"({"n":123456789012345678901234567890})", BodyShape::Object),
            "n must be an integer");
}

TEST(HttpBody, FieldReadersNameTheField) {
  const Poco::JSON::Object::Ptr body =
      parseObject(R"({"s":"x","n":7,"f":1.5,"list":["a","b"],"mixed":["a",1],"nothing":null})");
  EXPECT_EQ(requireString(*body, "s"), "x");
  EXPECT_EQ(optionalString(*body, "nothing", "nothing"), std::nullopt);
  EXPECT_EQ(optionalInteger(*body, "n"), 7);
  EXPECT_EQ(optionalStringArray(*body, "list"), (std::vector<std::string>{"a", "b"}));
  EXPECT_THROW(requireString(*body, "absent"), BadRequest);
  EXPECT_THROW(optionalString(*body, "n", "data.n"), BadRequest);
  EXPECT_THROW(optionalInteger(*body, "f"), BadRequest);
  EXPECT_THROW(optionalStringArray(*body, "mixed"), BadRequest);
  EXPECT_THROW(requireObject(body->get("s"), "s"), BadRequest);
}

TEST(HttpResponses, ErrorJsonCarriesTheStateWhenGiven) {
  EXPECT_EQ(errorJson("nope"), R"({"error":"nope"})");
  EXPECT_EQ(errorJson("busy", RuntimeState::Active), R"({"error":"busy","state":"active"})");
  EXPECT_EQ(noSuchRouteMessage("GET", "/x\n"), "no such route: GET /x");
}

}  // namespace
}  // namespace antidrift::http

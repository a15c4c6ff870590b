// Fuzz target: the ActivityWatch-compatible ingest (server/activitywatch_api.cpp,
// docs/DESIGN.md §3, docs/API.md §8) driven directly, past the HTTP layer, so the
// fuzzer spends its time on bucket ids, query parameters, event JSON and
// timestamps. The input is up to kMaxRequests records separated by a line
// "---"; each record is "METHOD PATH[?QUERY]\n" and then the body. Every
// record is served by one ActivityWatchApi on a fresh daemon stack, so a
// record may create the bucket the next one feeds. The first line of the
// input is also given to parseTimestampMs. Properties: handle() never throws;
// it answers 200, 304 or 4xx, never 5xx; every answer but 304 is JSON; a
// 4xx answer is {"error": sentence}; a parsed timestamp is not before 1970.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>
#include <Poco/URI.h>

#include "fuzz/daemon_stack.h"
#include "fuzz/fuzz_check.h"
#include "server/activitywatch_api.h"

using namespace antidrift;

namespace {

constexpr int kMaxRequests = 8;
constexpr std::string_view kSeparator = "\n---\n";

/// Checks the documented shape of a reply.
void checkReply(const ActivityWatchApi::Reply& reply) {
  fuzz::check(reply.status < 500, "bad input is answered 4xx, never 5xx (activitywatch_api.h)");
  if (reply.status == 304) return;
  Poco::Dynamic::Var parsed;
  try {
    // Inside an array, because Poco's parser refuses a top-level scalar
    // ("0", "null") that is valid JSON.
    parsed = Poco::JSON::Parser().parse("[" + reply.json + "]");
  } catch (const std::exception&) {
    fuzz::check(false, "every reply but 304 is JSON (activitywatch_api.h)");
  }
  if (reply.status >= 400) {
    const auto object = parsed.extract<Poco::JSON::Array::Ptr>()->getObject(0);
    fuzz::check(object && object->has("error") && object->get("error").isString(),
                "an error reply is {\"error\": sentence} (docs/API.md §2)");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view input = fuzz::asText(data, size);
  {
    const std::string firstLine(input.substr(0, input.find('\n')));
    const auto timestamp = ActivityWatchApi::parseTimestampMs(firstLine);
    fuzz::check(!timestamp || *timestamp >= 0, "parseTimestampMs: not before 1970");
  }

  fuzz::DaemonStack stack(ANTIDRIFT_WWW_DIR);
  ActivityWatchApi api(stack.controller(), ActivityWatchApi::Options{"fuzz-host", "v0.12.0"});
  for (int served = 0; served < kMaxRequests && !input.empty(); ++served) {
    const std::size_t end = input.find(kSeparator);
    const std::string_view record = input.substr(0, end);
    input =
        end == std::string_view::npos ? std::string_view() : input.substr(end + kSeparator.size());

    const std::size_t lineEnd = record.find('\n');
    const std::string_view requestLine = record.substr(0, lineEnd);
    const std::string body(lineEnd == std::string_view::npos ? std::string_view()
                                                             : record.substr(lineEnd + 1));
    const std::size_t space = requestLine.find(' ');
    const std::string method(requestLine.substr(0, space));
    const std::string target(space == std::string_view::npos ? std::string_view()
                                                             : requestLine.substr(space + 1));
    std::string path;
    std::vector<std::pair<std::string, std::string>> query;
    try {
      const Poco::URI uri(target);
      path = uri.getPath();
      query = uri.getQueryParameters();
    } catch (const Poco::Exception&) {
      continue;  // HttpApi answers a malformed URI itself (http_api_fuzz covers it)
    }
    if (!ActivityWatchApi::handles(path)) continue;

    ActivityWatchApi::Reply reply;
    try {
      reply = api.handle(method, path, query, body);
    } catch (...) {
      fuzz::check(false, "ActivityWatchApi::handle never throws for bad input");
    }
    checkReply(reply);
    stack.settle();
  }
  return 0;
}

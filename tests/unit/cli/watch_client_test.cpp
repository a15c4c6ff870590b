// antidrift-watch's pure parts (cli/watch_client.h, cli/sse_parser.h; issue
// 20 item 2): when `watch --format` refreshes the countdown by itself (once a
// minute on the minute, each second in the last one), the answer to GET
// /events read by hand (status line, headers, chunks), the events cut out of
// it, and the arguments `antidrift` passes.
#include "cli/watch_client.h"

#include <arpa/inet.h>

#include <cstdio>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cli/sse_parser.h"

namespace antidrift::cli {
namespace {

using Progress = EventStreamResponse::Progress;

TEST(BarWatch, TheCountdownIsRefreshedOnEachWholeMinute) {
  EXPECT_EQ(nextShownSecs(1500, 60), 1440);
  EXPECT_EQ(nextShownSecs(1441, 60), 1440);
  EXPECT_EQ(nextShownSecs(1440, 60), 1380);
  EXPECT_EQ(nextShownSecs(1439, 60), 1380);
  EXPECT_EQ(nextShownSecs(121, 60), 120);
}

TEST(BarWatch, TheLastMinuteIsCountedEachSecond) {
  EXPECT_EQ(nextShownSecs(119, 60), 60);
  EXPECT_EQ(nextShownSecs(75, 300), 60);
  EXPECT_EQ(nextShownSecs(60, 60), 59);
  EXPECT_EQ(nextShownSecs(1, 60), 0);
  EXPECT_EQ(nextShownSecs(0, 60), -1);
  EXPECT_EQ(nextShownSecs(-3, 60), -1);
}

TEST(BarWatch, OtherRefreshesAndNone) {
  EXPECT_EQ(nextShownSecs(1500, 1), 1499);
  EXPECT_EQ(nextShownSecs(1500, 300), 1200);
  EXPECT_EQ(nextShownSecs(1200, 300), 900);
  EXPECT_EQ(nextShownSecs(1500, 0), 60);
  EXPECT_EQ(nextShownSecs(30, 0), 29);
}

/// `data` as one chunk: its size in hex (upper or lower case), an optional
/// extension, CRLF, the data, CRLF.
std::string chunk(const std::string& data, bool upper = false, const std::string& extension = "") {
  char size[32];
  std::snprintf(size, sizeof size, upper ? "%zX" : "%zx", data.size());
  return size + extension + "\r\n" + data + "\r\n";
}

/// What antidriftd sends for GET /events: events and a keep-alive in
/// chunks (one event split across three), then the last chunk.
const std::string kChunkedAnswer =
    "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
    "Transfer-Encoding: chunked\r\n\r\n" +
    chunk("event: state\ndata: {\"runtime\":1}\n\n") + chunk(": keep-alive\r\n") +
    chunk("event: state\r\ndata: {\"a\":\r\n", true) + chunk("data: 2}\n", false, ";ext=1") +
    chunk("\n") + "0\r\n\r\n";

/// The body of `answer` fed `step` bytes at a time, and what the reader said last.
std::pair<std::string, Progress> bodyOf(const std::string& answer, std::size_t step) {
  EventStreamResponse response;
  std::string body;
  Progress progress = Progress::More;
  for (std::size_t at = 0; at < answer.size() && progress == Progress::More; at += step) {
    progress = response.feed(std::string_view(answer).substr(at, step), [&](std::string_view part) {
      body.append(part);
      return true;
    });
  }
  return {body, progress};
}

TEST(EventStreamResponse, DecodesTheChunkedBodyHoweverTheBytesArrive) {
  const std::string expected =
      "event: state\ndata: {\"runtime\":1}\n\n: keep-alive\r\n"
      "event: state\r\ndata: {\"a\":\r\ndata: 2}\n\n";
  for (std::size_t step : {1u, 2u, 3u, 7u, 64u, 4096u}) {
    const auto [body, progress] = bodyOf(kChunkedAnswer, step);
    EXPECT_EQ(body, expected) << "step " << step;
    EXPECT_EQ(progress, Progress::Ended) << "step " << step;
  }
}

TEST(EventStreamResponse, ABodyWithoutChunksRunsToTheEndOfTheConnection) {
  const auto [body, progress] = bodyOf("HTTP/1.0 200 OK\nContent-Type: x\n\ndata: 1\n\n", 5);
  EXPECT_EQ(body, "data: 1\n\n");
  EXPECT_EQ(progress, Progress::More);
}

TEST(EventStreamResponse, AnotherStatusIsRefusedAndGarbageIsMalformed) {
  EventStreamResponse busy;
  const auto never = [](std::string_view) {
    ADD_FAILURE() << "no body expected";
    return true;
  };
  EXPECT_EQ(busy.feed("HTTP/1.1 503 Service Unavailable\r\nRetry-After: 5\r\n\r\n{}", never),
            Progress::Refused);
  EXPECT_EQ(busy.status(), 503);
  EXPECT_EQ(busy.feed("more", never), Progress::Refused);
  EXPECT_EQ(EventStreamResponse().feed("SSH-2.0-OpenSSH_9.2\r\n\r\n", never), Progress::Malformed);
  EXPECT_EQ(EventStreamResponse().feed("HTTP/1.1 2x0 OK\r\n\r\n", never), Progress::Malformed);
  const std::string badSize = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n";
  EXPECT_EQ(EventStreamResponse().feed(badSize, never), Progress::Malformed);
  const std::string overrun = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nxy\r\n";
  EXPECT_EQ(bodyOf(overrun, 1).second, Progress::Malformed);
  // A head over 16 KiB is refused however its bytes arrive (the fuzz
  // target's property): here its end lies 4 bytes past the limit, and a
  // first piece of 10 bytes once let the second carry it in.
  const std::string start = "HTTP/1.1 200 OK\r\nX: ";
  const std::string longHead = start + std::string(16 * 1024 + 4 - start.size(), 'a') + "\r\n\r\n";
  EXPECT_EQ(bodyOf(longHead, longHead.size()).second, Progress::Malformed);
  EventStreamResponse twoPieces;
  EXPECT_EQ(twoPieces.feed(std::string_view(longHead).substr(0, 10), never), Progress::More);
  EXPECT_EQ(twoPieces.feed(std::string_view(longHead).substr(10), never), Progress::Malformed);
  // An endless head or chunk-size line is refused, not buffered.
  EXPECT_EQ(bodyOf("HTTP/1.1 200 OK\r\nX: " + std::string(20000, 'a'), 1000).second,
            Progress::Malformed);
  EXPECT_EQ(
      bodyOf("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + std::string(100, '0'), 10)
          .second,
      Progress::Malformed);
}

TEST(EventStreamResponse, TheBodyHandlerCanStopIt) {
  EventStreamResponse response;
  EXPECT_EQ(response.feed("HTTP/1.1 200 OK\r\n\r\nabc", [](std::string_view) { return false; }),
            Progress::Stopped);
}

TEST(SseParser, CutsEventsOutOfLinesAsTheFormatSays) {
  SseParser parser;
  std::vector<std::pair<std::string, std::string>> events;
  const auto collect = [&](const ServerEvent& event) {
    events.emplace_back(event.name, event.data);
    return true;
  };
  const std::string stream =
      ": keep-alive\n\nevent: state\r\ndata: {\"a\":\r\ndata:2}\r\n\r\ndata: plain\nid: 3\n\n"
      "event:bye\n\n";
  for (char c : stream) {
    ASSERT_TRUE(parser.feed(std::string_view(&c, 1), collect));
  }
  EXPECT_THAT(events,
              testing::ElementsAre(std::make_pair("state", "{\"a\":\n2}"),
                                   std::make_pair("message", "plain"), std::make_pair("bye", "")));
}

TEST(SseParser, StopsWhenTheHandlerSaysSoAndRefusesEndlessLines) {
  SseParser parser;
  int seen = 0;
  EXPECT_FALSE(parser.feed("data: 1\n\ndata: 2\n\n", [&](const ServerEvent&) {
    ++seen;
    return false;
  }));
  EXPECT_EQ(seen, 1);
  SseParser endless;
  const std::string chunk(64 * 1024, 'x');
  EXPECT_THROW(
      {
        for (int i = 0; i < 5; ++i) endless.feed(chunk, [](const ServerEvent&) { return true; });
      },
      SseTooLarge);
}

TEST(WatchClientArguments, RoundTripAndRefuseWhatIsNotThere) {
  WatchClientOptions options;
  options.format = BarFormat::Polybar;
  options.refresh = std::chrono::seconds(0);
  options.silenceLimit = std::chrono::seconds(50);
  options.connectTimeout = std::chrono::seconds(10);
  options.daemon.family = AF_INET6;
  ASSERT_EQ(::inet_pton(AF_INET6, "::1", options.daemon.bytes), 1);
  options.daemon.port = 7717;
  options.host = "[::1]:7717";
  const std::vector<std::string> args = watchClientArguments(options);
  EXPECT_THAT(args, testing::Contains("--address"));
  EXPECT_THAT(args, testing::Contains("::1"));
  std::string error;
  const std::optional<WatchClientOptions> back = parseWatchClientArguments(args, error);
  ASSERT_TRUE(back) << error;
  EXPECT_EQ(back->format, BarFormat::Polybar);
  EXPECT_EQ(back->refresh.count(), 0);
  EXPECT_EQ(back->silenceLimit.count(), 50);
  EXPECT_EQ(back->daemon.family, AF_INET6);
  EXPECT_EQ(back->daemon.port, 7717);
  EXPECT_EQ(back->host, "[::1]:7717");

  auto without = [&](const std::string& name, const std::string& value) {
    std::vector<std::string> changed = args;
    for (std::size_t i = 0; i + 1 < changed.size(); i += 2) {
      if (changed[i] == name) changed[i + 1] = value;
    }
    std::string why;
    return parseWatchClientArguments(changed, why).has_value();
  };
  EXPECT_FALSE(without("--format", "dzen"));
  EXPECT_FALSE(without("--address", "localhost"));
  EXPECT_FALSE(without("--port", "0"));
  EXPECT_FALSE(without("--port", "70000"));
  EXPECT_FALSE(without("--silence", "0"));
  EXPECT_FALSE(without("--host", "a\r\nX-Evil: 1"));
  EXPECT_FALSE(parseWatchClientArguments({"--format", "waybar"}, error));
  EXPECT_THAT(error, testing::HasSubstr("missing"));
}

}  // namespace
}  // namespace antidrift::cli

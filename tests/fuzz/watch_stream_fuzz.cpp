// Fuzz target: what antidrift-watch reads from the daemon's port (issue 20
// item 2; cli/watch_client.h, cli/sse_parser.h, cli/state_text.h) — the HTTP
// answer it decodes by hand, the events cut out of its body, and the bar
// line each State becomes. Properties: nothing throws but SseTooLarge (a
// refused stream); the decoded body and the reader's verdict do not depend
// on where the bytes are split; every bar line is exactly one line ending in
// '\n', so a State can never split or add a line of the bar's protocol.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "cli/sse_parser.h"
#include "cli/state_text.h"
#include "cli/watch_client.h"
#include "fuzz/fuzz_check.h"

using namespace antidrift;
using cli::EventStreamResponse;

namespace {

/// The body `input` decodes to when fed in two pieces cut at `cut`.
std::string decode(std::string_view input, std::size_t cut, EventStreamResponse::Progress& end) {
  EventStreamResponse response;
  std::string body;
  const auto keep = [&](std::string_view part) {
    body.append(part);
    return true;
  };
  end = response.feed(input.substr(0, cut), keep);
  if (end == EventStreamResponse::Progress::More) {
    end = response.feed(input.substr(cut), keep);
  }
  return body;
}

bool isOneLine(const std::string& line) {
  return !line.empty() && line.back() == '\n' && line.find('\n') == line.size() - 1;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input = fuzz::asText(data, size);
  EventStreamResponse::Progress whole = EventStreamResponse::Progress::More;
  EventStreamResponse::Progress split = EventStreamResponse::Progress::More;
  const std::string body = decode(input, input.size(), whole);
  const std::size_t cut = size == 0 ? 0 : data[0] % (size + 1);
  fuzz::check(decode(input, cut, split) == body && split == whole,
              "EventStreamResponse: the body does not depend on how the bytes arrive");

  cli::SseParser events;
  try {
    events.feed(body, [](const cli::ServerEvent& event) {
      fuzz::check(event.data.size() <= cli::kMaxEventLineBytes, "SseParser: bounded events");
      const nlohmann::json state = nlohmann::json::parse(event.data, nullptr, false);
      if (state.is_discarded()) return true;
      for (cli::BarFormat format :
           {cli::BarFormat::Waybar, cli::BarFormat::I3blocks, cli::BarFormat::Polybar}) {
        fuzz::check(isOneLine(cli::barLine(state, format)),
                    "barLine: one line ending in '\\n' (state_text.h)");
      }
      fuzz::check(cli::describeState(state).find("runtime: ") == 0, "describeState: runtime first");
      return true;
    });
  } catch (const cli::SseTooLarge&) {
    // Refused, as documented: the watch drops the stream.
  }
  return 0;
}

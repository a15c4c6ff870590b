#include "cli/sse_parser.h"

namespace antidrift::cli {

bool SseParser::feed(std::string_view bytes, const EventHandler& onEvent) {
  while (!bytes.empty()) {
    const std::size_t newline = bytes.find('\n');
    const std::string_view part = bytes.substr(0, newline);
    if (line_.size() + part.size() > kMaxEventLineBytes) {
      throw SseTooLarge("an event line is over " + std::to_string(kMaxEventLineBytes / 1024) +
                        " KiB");
    }
    line_.append(part);
    if (newline == std::string_view::npos) {
      return true;
    }
    bytes.remove_prefix(newline + 1);
    if (!takeLine(onEvent)) {
      return false;
    }
  }
  return true;
}

bool SseParser::takeLine(const EventHandler& onEvent) {
  std::string line;
  line.swap(line_);
  if (!line.empty() && line.back() == '\r') {
    line.pop_back();
  }
  if (line.empty()) {
    ServerEvent event;
    std::swap(event, event_);
    if (event.data.empty() && event.name.empty()) {
      return true;
    }
    if (event.name.empty()) {
      event.name = "message";
    }
    return onEvent(event);
  }
  if (line.rfind("event:", 0) == 0) {
    event_.name = line.substr(line.size() > 6 && line[6] == ' ' ? 7 : 6);
  } else if (line.rfind("data:", 0) == 0) {
    if (!event_.data.empty()) {
      event_.data += '\n';
    }
    event_.data += line.substr(line.size() > 5 && line[5] == ' ' ? 6 : 5);
    if (event_.data.size() > kMaxEventLineBytes) {
      throw SseTooLarge("an event is over " + std::to_string(kMaxEventLineBytes / 1024) + " KiB");
    }
  }
  return true;
}

}  // namespace antidrift::cli

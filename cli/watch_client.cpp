#include "cli/watch_client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <map>
#include <system_error>

#include <nlohmann/json.hpp>

#include "cli/listener_check.h"
#include "cli/sse_parser.h"

namespace antidrift::cli {
namespace {

using Clock = std::chrono::steady_clock;
using nlohmann::json;

/// Largest status line and headers of the answer, bytes.
constexpr std::size_t kMaxHeadBytes = 16 * 1024;
/// Largest chunk-size line ("1a2b;ext\r\n"), bytes.
constexpr std::size_t kMaxChunkLineBytes = 64;
/// Bytes read from the stream at once.
constexpr std::size_t kReadBytes = 16 * 1024;

[[noreturn]] void throwErrno(const std::string& what) {
  throw std::system_error(errno, std::generic_category(), what);
}

/// A file descriptor closed on destruction (or reset()).
class Descriptor {
 public:
  explicit Descriptor(int fd = -1) : fd_(fd) {}
  ~Descriptor() { reset(); }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  int get() const { return fd_; }
  void reset(int fd = -1) {
    if (fd_ >= 0) {
      ::close(fd_);
    }
    fd_ = fd;
  }

 private:
  int fd_;
};

std::string lowerCase(std::string text) {
  for (char& c : text) {
    if (c >= 'A' && c <= 'Z') {
      c = static_cast<char>(c - 'A' + 'a');
    }
  }
  return text;
}

/// `text` without leading and trailing spaces and tabs.
std::string_view trimmed(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

/// Writes all of `line`; false when the reader has gone (EPIPE) or the
/// descriptor fails otherwise.
bool writeAll(int fd, const std::string& line) {
  std::size_t written = 0;
  while (written < line.size()) {
    const ssize_t n = ::write(fd, line.data() + written, line.size() - written);
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      return false;
    }
    written += static_cast<std::size_t>(n);
  }
  return true;
}

/// The State being shown and when it arrived, to count down locally.
struct Shown {
  json state;
  bool counting = false;  ///< active with a commitment: the countdown runs
  long long remainingAtReceipt = 0;
  Clock::time_point receivedAt;

  /// Time left now, rounded up like the daemon's `remaining_secs`.
  long long remainingNow(Clock::time_point now) const {
    const long long elapsedMs =
        std::chrono::duration_cast<std::chrono::milliseconds>(now - receivedAt).count();
    const long long leftMs = remainingAtReceipt * 1000 - elapsedMs;
    return leftMs <= 0 ? 0 : (leftMs + 999) / 1000;
  }
};

/// A State's JSON as Shown; nullopt when it is no JSON object.
std::optional<Shown> parseShown(const std::string& text, Clock::time_point now) {
  Shown shown;
  shown.state = json::parse(text, nullptr, false);
  if (shown.state.is_discarded() || !shown.state.is_object()) {
    return std::nullopt;
  }
  shown.receivedAt = now;
  const auto runtime = shown.state.find("runtime");
  const auto commitment = shown.state.find("commitment");
  if (runtime != shown.state.end() && *runtime == "active" && commitment != shown.state.end() &&
      commitment->is_object()) {
    shown.counting = true;
    const auto remaining = commitment->find("remaining_secs");
    if (remaining != commitment->end() && remaining->is_number_integer()) {
      shown.remainingAtReceipt = remaining->get<long long>();
    }
  }
  return shown;
}

/// Whole seconds from `text`, 0..86400; nullopt otherwise.
std::optional<long long> parseSeconds(const std::string& text) {
  if (text.empty() || text.size() > 5 ||
      !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  const long long value = std::stoll(text);
  return value <= 86400 ? std::optional<long long>(value) : std::nullopt;
}

std::string formatName(BarFormat format) {
  switch (format) {
    case BarFormat::Waybar:
      return "waybar";
    case BarFormat::I3blocks:
      return "i3blocks";
    case BarFormat::Polybar:
      return "polybar";
  }
  return "waybar";
}

/// The connection to the daemon and what has been read of it.
struct Link {
  enum class Phase { Waiting, Connecting, Open };
  Phase phase = Phase::Waiting;
  Descriptor socket;
  Clock::time_point due;       ///< Waiting: when to connect; Connecting: when to give up
  Clock::time_point lastData;  ///< Open: when the last byte came
  EventStreamResponse response;
  SseParser events;
};

/// The watch's state between poll(2) calls.
class Watch {
 public:
  Watch(const WatchClientOptions& options, int outFd, int errFd)
      : options_(options), outFd_(outFd), errFd_(errFd), backoff_(options.firstBackoff) {
    link_.due = Clock::now();
  }

  int run();

 private:
  /// Connects when a connection is due (Waiting, its time has come).
  void connectIfDue(Clock::time_point now);
  /// The connection is accepted (or failed): check its owner, send the request.
  void finishConnect(Clock::time_point now);
  /// Reads what the stream has; a State becomes the one shown; an end,
  /// a `bye` or a malformed answer loses the connection.
  void readStream(Clock::time_point now);
  /// Drops the connection, shows "off" and schedules the next attempt.
  void lose(Clock::time_point now, const std::string& why = "");
  /// The line for now, written when it differs from the last; returns the
  /// poll(2) timeout in ms until the countdown next changes it (-1: none);
  /// false in `ok` when the reader has gone.
  int show(Clock::time_point now, bool& ok);

  const WatchClientOptions& options_;
  int outFd_;
  int errFd_;
  std::chrono::milliseconds backoff_;
  Link link_;
  std::optional<Shown> shown_;
  bool offline_ = false;
  std::string lastLine_;
  std::string lastError_;
};

void Watch::lose(Clock::time_point now, const std::string& why) {
  link_.socket.reset();
  link_.phase = Link::Phase::Waiting;
  link_.due = now + backoff_;
  backoff_ = std::min(backoff_ * 2, options_.maxBackoff);
  shown_.reset();
  offline_ = true;
  if (!why.empty() && why != lastError_) {
    writeAll(errFd_, "antidrift: " + why + "\n");
  }
  lastError_ = why;
}

void Watch::connectIfDue(Clock::time_point now) {
  if (link_.phase != Link::Phase::Waiting || now < link_.due) {
    return;
  }
  link_.response = EventStreamResponse();
  link_.events = SseParser();
  link_.socket.reset(
      ::socket(options_.daemon.family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (link_.socket.get() < 0) {
    lose(now, std::string("cannot open a socket: ") + std::strerror(errno));
    return;
  }
  sockaddr_storage address{};
  socklen_t length = 0;
  if (options_.daemon.family == AF_INET6) {
    auto* ipv6 = reinterpret_cast<sockaddr_in6*>(&address);
    ipv6->sin6_family = AF_INET6;
    std::memcpy(&ipv6->sin6_addr, options_.daemon.bytes, 16);
    ipv6->sin6_port = htons(options_.daemon.port);
    length = sizeof(sockaddr_in6);
  } else {
    auto* ipv4 = reinterpret_cast<sockaddr_in*>(&address);
    ipv4->sin_family = AF_INET;
    std::memcpy(&ipv4->sin_addr, options_.daemon.bytes, 4);
    ipv4->sin_port = htons(options_.daemon.port);
    length = sizeof(sockaddr_in);
  }
  if (::connect(link_.socket.get(), reinterpret_cast<sockaddr*>(&address), length) == 0) {
    finishConnect(now);
  } else if (errno == EINPROGRESS) {
    link_.phase = Link::Phase::Connecting;
    link_.due = now + options_.connectTimeout;
  } else {
    lose(now);  // refused: the daemon is not running
  }
}

void Watch::finishConnect(Clock::time_point now) {
  int error = 0;
  socklen_t size = sizeof error;
  if (::getsockopt(link_.socket.get(), SOL_SOCKET, SO_ERROR, &error, &size) != 0 || error != 0) {
    lose(now);
    return;
  }
  // Nothing is sent before the listener is known to be this user's
  // (issue 19 item 2, docs/SECURITY.md M2).
  if (const std::optional<std::string> refusal = foreignListener(link_.socket.get())) {
    lose(now, *refusal);
    return;
  }
  const std::string request = "GET /events HTTP/1.1\r\nHost: " + options_.host +
                              "\r\nAccept: text/event-stream\r\nConnection: close\r\n\r\n";
  const ssize_t sent = ::send(link_.socket.get(), request.data(), request.size(), MSG_NOSIGNAL);
  if (sent != static_cast<ssize_t>(request.size())) {
    lose(now);  // a fresh socket takes a few hundred bytes at once, or is broken
    return;
  }
  link_.phase = Link::Phase::Open;
  link_.lastData = now;
}

void Watch::readStream(Clock::time_point now) {
  char bytes[kReadBytes];
  const ssize_t count = ::recv(link_.socket.get(), bytes, sizeof bytes, 0);
  if (count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
    return;
  }
  if (count <= 0) {
    lose(now);  // the daemon closed the connection (stopped, or killed)
    return;
  }
  link_.lastData = now;
  std::optional<std::string> newest;  // a bar shows the present: only the last State counts
  bool bye = false;
  EventStreamResponse::Progress progress = EventStreamResponse::Progress::More;
  try {
    progress = link_.response.feed(std::string_view(bytes, static_cast<std::size_t>(count)),
                                   [&](std::string_view body) {
                                     return link_.events.feed(body, [&](const ServerEvent& event) {
                                       if (event.name == "bye") {
                                         bye = true;
                                         return false;  // the daemon is stopping
                                       }
                                       if (event.name == "state") {
                                         newest = event.data;
                                       }
                                       return true;
                                     });
                                   });
  } catch (const SseTooLarge&) {
    progress = EventStreamResponse::Progress::Malformed;
  }
  if (newest) {
    if (std::optional<Shown> shown = parseShown(*newest, now)) {
      shown_ = std::move(shown);
      offline_ = false;
      backoff_ = options_.firstBackoff;
      lastError_.clear();
    }
  }
  if (bye || progress != EventStreamResponse::Progress::More) {
    lose(now);
  }
}

int Watch::show(Clock::time_point now, bool& ok) {
  ok = true;
  std::string line;
  int timeoutMs = -1;
  if (offline_) {
    line = offlineBarLine(options_.format);
  } else if (shown_) {
    if (shown_->counting) {
      const long long left = shown_->remainingNow(now);
      shown_->state["commitment"]["remaining_secs"] = left;
      const long long next = nextShownSecs(left, options_.refresh.count());
      if (next >= 0) {
        const Clock::time_point due =
            shown_->receivedAt + std::chrono::seconds(shown_->remainingAtReceipt - next);
        const auto wait = std::chrono::ceil<std::chrono::milliseconds>(due - now).count();
        timeoutMs = static_cast<int>(std::clamp<long long>(wait, 0, 24LL * 3600 * 1000));
      }
    }
    line = barLine(shown_->state, options_.format);
  }
  if (!line.empty() && line != lastLine_) {
    if (!writeAll(outFd_, line)) {
      ok = false;
      return -1;
    }
    lastLine_ = line;
  }
  return timeoutMs;
}

/// `timeoutMs` shortened so poll(2) wakes by `due` (never negative).
int until(Clock::time_point due, Clock::time_point now, int timeoutMs) {
  const long long wait =
      std::max<long long>(0, std::chrono::ceil<std::chrono::milliseconds>(due - now).count());
  const int capped = static_cast<int>(std::min<long long>(wait, 24LL * 3600 * 1000));
  return timeoutMs < 0 ? capped : std::min(timeoutMs, capped);
}

int Watch::run() {
  ::signal(SIGPIPE, SIG_IGN);
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGHUP);
  if (::sigprocmask(SIG_BLOCK, &signals, nullptr) != 0) {
    throwErrno("sigprocmask");
  }
  const Descriptor signalFd(::signalfd(-1, &signals, SFD_CLOEXEC));
  if (signalFd.get() < 0) {
    throwErrno("signalfd");
  }
  for (;;) {
    Clock::time_point now = Clock::now();
    connectIfDue(now);
    bool ok = true;
    int timeoutMs = show(now, ok);
    if (!ok) {
      break;  // the bar closed our stdout
    }
    pollfd fds[3] = {{signalFd.get(), POLLIN, 0}, {outFd_, 0, 0}, {-1, 0, 0}};
    switch (link_.phase) {
      case Link::Phase::Waiting:
        timeoutMs = until(link_.due, now, timeoutMs);
        break;
      case Link::Phase::Connecting:
        fds[2] = {link_.socket.get(), POLLOUT, 0};
        timeoutMs = until(link_.due, now, timeoutMs);
        break;
      case Link::Phase::Open:
        fds[2] = {link_.socket.get(), POLLIN, 0};
        timeoutMs = until(link_.lastData + options_.silenceLimit, now, timeoutMs);
        break;
    }
    const int ready = ::poll(fds, 3, timeoutMs);
    if (ready < 0) {
      if (errno == EINTR) {
        continue;
      }
      throwErrno("poll");
    }
    if (fds[0].revents != 0 || fds[1].revents != 0) {
      break;  // SIGTERM/SIGINT/SIGHUP, or the bar closed our stdout
    }
    now = Clock::now();
    if (fds[2].revents != 0) {
      if (link_.phase == Link::Phase::Connecting) {
        finishConnect(now);
      } else if (link_.phase == Link::Phase::Open) {
        readStream(now);
      }
    } else if (link_.phase == Link::Phase::Connecting && now >= link_.due) {
      lose(now);  // not accepted in time
    } else if (link_.phase == Link::Phase::Open && now - link_.lastData >= options_.silenceLimit) {
      lose(now);  // no event and no keep-alive: the daemon hangs or is gone
    }
  }
  return 0;
}

}  // namespace

std::vector<std::string> watchClientArguments(const WatchClientOptions& options) {
  char address[INET6_ADDRSTRLEN] = {};
  ::inet_ntop(options.daemon.family, options.daemon.bytes, address, sizeof address);
  return {"--format",  formatName(options.format),
          "--refresh", std::to_string(options.refresh.count()),
          "--silence", std::to_string(options.silenceLimit.count()),
          "--timeout", std::to_string(options.connectTimeout.count()),
          "--address", address,
          "--port",    std::to_string(options.daemon.port),
          "--host",    options.host};
}

std::optional<WatchClientOptions> parseWatchClientArguments(const std::vector<std::string>& args,
                                                            std::string& error) {
  std::map<std::string, std::string> values;
  for (std::size_t i = 0; i < args.size(); i += 2) {
    if (i + 1 >= args.size()) {
      error = args[i] + " needs a value";
      return std::nullopt;
    }
    if (!values.emplace(args[i], args[i + 1]).second) {
      error = args[i] + " is given twice";
      return std::nullopt;
    }
  }
  WatchClientOptions options;
  for (const char* name :
       {"--format", "--refresh", "--silence", "--timeout", "--address", "--port", "--host"}) {
    if (values.count(name) == 0) {
      error = std::string(name) + " is missing";
      return std::nullopt;
    }
  }
  if (values.size() != 7) {
    error = "unknown option";
    return std::nullopt;
  }
  const std::optional<BarFormat> format = parseBarFormat(values["--format"]);
  if (!format) {
    error = "--format must be waybar, i3blocks or polybar";
    return std::nullopt;
  }
  options.format = *format;
  const std::optional<long long> refresh = parseSeconds(values["--refresh"]);
  const std::optional<long long> silence = parseSeconds(values["--silence"]);
  const std::optional<long long> timeout = parseSeconds(values["--timeout"]);
  const std::optional<long long> port = parseSeconds(values["--port"]);
  if (!refresh || !silence || *silence == 0 || !timeout || *timeout == 0) {
    error = "--refresh, --silence and --timeout take whole seconds (1..86400; --refresh 0..)";
    return std::nullopt;
  }
  if (!port || *port < 1 || *port > 65535) {
    error = "--port must be 1..65535";
    return std::nullopt;
  }
  options.refresh = std::chrono::seconds(*refresh);
  options.silenceLimit = std::chrono::seconds(*silence);
  options.connectTimeout = std::chrono::seconds(*timeout);
  options.daemon.port = static_cast<std::uint16_t>(*port);
  const std::string& address = values["--address"];
  if (::inet_pton(AF_INET, address.c_str(), options.daemon.bytes) == 1) {
    options.daemon.family = AF_INET;
  } else if (::inet_pton(AF_INET6, address.c_str(), options.daemon.bytes) == 1) {
    options.daemon.family = AF_INET6;
  } else {
    error = "--address must be a numeric IPv4 or IPv6 address, got \"" + address + "\"";
    return std::nullopt;
  }
  options.host = values["--host"];
  if (options.host.empty() || options.host.find_first_of("\r\n") != std::string::npos) {
    error = "--host must be one line";
    return std::nullopt;
  }
  return options;
}

long long nextShownSecs(long long shownSecs, long long refreshSecs) {
  if (shownSecs <= 0) {
    return -1;
  }
  if (shownSecs <= 60) {
    return shownSecs - 1;
  }
  if (refreshSecs <= 0) {
    return 60;  // only the last minute is counted
  }
  const long long below = (shownSecs - 1) / refreshSecs * refreshSecs;
  return std::max(below, 60LL);
}

EventStreamResponse::Progress EventStreamResponse::takeHead() {
  // "HTTP/1.1 200 OK", then "Name: value" lines.
  std::size_t lineEnd = head_.find('\n');
  const std::string statusLine = head_.substr(0, lineEnd);
  if (statusLine.rfind("HTTP/1.", 0) != 0 || statusLine.size() < 12 || statusLine[8] != ' ') {
    return Progress::Malformed;
  }
  const std::string code = statusLine.substr(9, 3);
  if (!std::all_of(code.begin(), code.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return Progress::Malformed;
  }
  status_ = std::stoi(code);
  bool chunked = false;
  while (lineEnd != std::string::npos && lineEnd + 1 < head_.size()) {
    const std::size_t start = lineEnd + 1;
    lineEnd = head_.find('\n', start);
    const std::string_view line = trimmed(std::string_view(head_).substr(
        start, (lineEnd == std::string::npos ? head_.size() : lineEnd) - start));
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) {
      continue;
    }
    if (lowerCase(std::string(trimmed(line.substr(0, colon)))) == "transfer-encoding" &&
        lowerCase(std::string(line.substr(colon + 1))).find("chunked") != std::string::npos) {
      chunked = true;
    }
  }
  head_.clear();
  if (status_ != 200) {
    return Progress::Refused;
  }
  phase_ = chunked ? Phase::ChunkSize : Phase::Raw;
  return Progress::More;
}

EventStreamResponse::Progress EventStreamResponse::feed(std::string_view bytes,
                                                        const BodyHandler& onBody) {
  const auto finish = [this](Progress progress) {
    if (progress != Progress::More) {
      phase_ = Phase::Done;
      done_ = progress;
    }
    return progress;
  };
  while (!bytes.empty() && phase_ != Phase::Done) {
    switch (phase_) {
      case Phase::Head: {
        // Up to the empty line; "\r\n\r\n" or a bare "\n\n".
        const std::size_t before = head_.size();
        head_.append(bytes.substr(0, std::min(bytes.size(), kMaxHeadBytes + 4)));
        std::size_t end = head_.find("\r\n\r\n", before > 3 ? before - 3 : 0);
        std::size_t endLength = 4;
        const std::size_t bare = head_.find("\n\n", before > 1 ? before - 1 : 0);
        if (bare != std::string::npos && (end == std::string::npos || bare < end)) {
          end = bare;
          endLength = 2;
        }
        if (end == std::string::npos) {
          if (head_.size() > kMaxHeadBytes) return finish(Progress::Malformed);
          bytes.remove_prefix(head_.size() - before);
          break;
        }
        if (end > kMaxHeadBytes) return finish(Progress::Malformed);  // however it arrived
        bytes.remove_prefix(end + endLength - before);
        head_.resize(end);
        if (finish(takeHead()) != Progress::More) return done_;
        break;
      }
      case Phase::ChunkSize:
      case Phase::ChunkEnd: {
        const std::size_t newline = bytes.find('\n');
        head_.append(bytes.substr(0, newline));
        if (head_.size() > kMaxChunkLineBytes) return finish(Progress::Malformed);
        if (newline == std::string_view::npos) {
          bytes = {};
          break;
        }
        bytes.remove_prefix(newline + 1);
        std::string line;
        line.swap(head_);
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (phase_ == Phase::ChunkEnd) {
          if (!line.empty()) return finish(Progress::Malformed);
          phase_ = Phase::ChunkSize;
          break;
        }
        const std::string size = line.substr(0, line.find(';'));
        const std::string_view digits = trimmed(size);
        if (digits.empty() || digits.size() > 15 ||
            !std::all_of(digits.begin(), digits.end(),
                         [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); })) {
          return finish(Progress::Malformed);
        }
        chunkLeft_ = std::stoull(std::string(digits), nullptr, 16);
        if (chunkLeft_ == 0) return finish(Progress::Ended);  // the last chunk
        phase_ = Phase::ChunkData;
        break;
      }
      case Phase::ChunkData: {
        const std::size_t take =
            static_cast<std::size_t>(std::min<unsigned long long>(chunkLeft_, bytes.size()));
        const std::string_view piece = bytes.substr(0, take);
        bytes.remove_prefix(take);
        chunkLeft_ -= take;
        if (chunkLeft_ == 0) phase_ = Phase::ChunkEnd;
        if (!onBody(piece)) return finish(Progress::Stopped);
        break;
      }
      case Phase::Raw:
        if (!onBody(bytes)) return finish(Progress::Stopped);
        bytes = {};
        break;
      case Phase::Done:
        break;
    }
  }
  return phase_ == Phase::Done ? done_ : Progress::More;
}

int runWatchClient(const WatchClientOptions& options, int outFd, int errFd) {
  Watch watch(options, outFd, errFd);
  return watch.run();
}

}  // namespace antidrift::cli

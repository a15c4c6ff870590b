#include "antidrift/runner/process_runner.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <Poco/Environment.h>
#include <Poco/Exception.h>
#include <Poco/File.h>
#include <Poco/Path.h>
#include <Poco/Pipe.h>
#include <Poco/Process.h>
#include <Poco/UTF8Encoding.h>

namespace antidrift::runner {
namespace {

using Clock = std::chrono::steady_clock;
using Milliseconds = std::chrono::milliseconds;

constexpr const char* kReplacementCharacter = "\xEF\xBF\xBD";  // U+FFFD
constexpr std::size_t kReadChunk = 64 * 1024;
constexpr std::size_t kWriteChunk = 64 * 1024;
/// Longest sleep in poll() while pipes are open; exit of the child usually
/// wakes poll earlier through POLLHUP on its stdout/stderr.
constexpr int kPollSliceMs = 100;
/// Poll slice once both outputs reached EOF and only the exit is awaited.
constexpr int kExitPollSliceMs = 5;

void setNonBlockingAndCloseOnExec(int fd) {
  const int statusFlags = ::fcntl(fd, F_GETFL);
  if (statusFlags != -1) {
    ::fcntl(fd, F_SETFL, statusFlags | O_NONBLOCK);
  }
  const int descriptorFlags = ::fcntl(fd, F_GETFD);
  if (descriptorFlags != -1) {
    ::fcntl(fd, F_SETFD, descriptorFlags | FD_CLOEXEC);
  }
}

/// True once the child has exited; leaves it unreaped (WNOWAIT) so its pid,
/// and with it the process-group id, cannot be reused while we signal the group.
bool hasExited(int pid) {
  siginfo_t info;
  std::memset(&info, 0, sizeof info);
  int rc;
  do {
    rc = ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT);
  } while (rc == -1 && errno == EINTR);
  return rc == 0 && info.si_pid != 0;
}

void signalGroup(int processGroupId, int signalNumber) {
  if (processGroupId > 0) {
    ::kill(-processGroupId, signalNumber);
  }
}

/// Blocks SIGPIPE on the calling thread for its lifetime, so a write to a
/// closed stdin pipe fails with EPIPE instead of killing the process; a
/// SIGPIPE raised meanwhile is consumed before the old mask is restored.
class SigpipeBlock {
 public:
  SigpipeBlock() {
    sigemptyset(&pipeOnly_);
    sigaddset(&pipeOnly_, SIGPIPE);
    ::pthread_sigmask(SIG_BLOCK, &pipeOnly_, &previous_);
  }
  ~SigpipeBlock() {
    if (sigismember(&previous_, SIGPIPE) == 0) {
      sigset_t pending;
      sigemptyset(&pending);
      if (::sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE) == 1) {
        const timespec zero{0, 0};
        ::sigtimedwait(&pipeOnly_, nullptr, &zero);
      }
    }
    ::pthread_sigmask(SIG_SETMASK, &previous_, nullptr);
  }
  SigpipeBlock(const SigpipeBlock&) = delete;
  SigpipeBlock& operator=(const SigpipeBlock&) = delete;

 private:
  sigset_t pipeOnly_;
  sigset_t previous_;
};

/// One output pipe of the child and what was read from it.
struct OutputStream {
  Poco::Pipe pipe;
  std::string bytes;
  bool open = true;
  std::size_t limit = 0;

  /// Reads what is available without blocking; closes at EOF or on error.
  void drain() {
    if (!open) {
      return;
    }
    char buffer[kReadChunk];
    for (int round = 0; round < 16; ++round) {
      const ssize_t count = ::read(pipe.readHandle(), buffer, sizeof buffer);
      if (count > 0) {
        const std::size_t room = bytes.size() < limit ? limit - bytes.size() : 0;
        bytes.append(buffer, std::min(room, static_cast<std::size_t>(count)));
        continue;
      }
      if (count == -1 && errno == EINTR) {
        continue;
      }
      if (count == -1 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        return;
      }
      close();  // EOF or a read error
      return;
    }
  }

  void close() {
    if (open) {
      pipe.close(Poco::Pipe::CLOSE_READ);
      open = false;
    }
  }
};

/// The child's stdin and the part of the input not yet written.
struct InputStream {
  Poco::Pipe pipe;
  const std::string* input = nullptr;
  std::size_t written = 0;
  bool open = true;

  void write() {
    while (open && written < input->size()) {
      const std::size_t length = std::min(kWriteChunk, input->size() - written);
      const ssize_t count = ::write(pipe.writeHandle(), input->data() + written, length);
      if (count > 0) {
        written += static_cast<std::size_t>(count);
      } else if (count == -1 && errno == EINTR) {
        continue;
      } else if (count == -1 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        return;
      } else {
        close();  // EPIPE: the child stopped reading; its exit status tells why
        return;
      }
    }
    if (written >= input->size()) {
      close();
    }
  }

  void close() {
    if (open) {
      pipe.close(Poco::Pipe::CLOSE_WRITE);
      open = false;
    }
  }
};

int millisecondsUntil(Clock::time_point when, Clock::time_point now, int cap) {
  const auto remaining = std::chrono::duration_cast<Milliseconds>(when - now).count();
  if (remaining <= 0) {
    return 0;
  }
  return static_cast<int>(std::min<std::int64_t>(remaining + 1, cap));
}

/// Waits up to `waitMs` for stdin to accept bytes or an output to have data,
/// then moves what it can.
void pump(InputStream& in, OutputStream& out, OutputStream& err, int waitMs) {
  pollfd fds[3];
  nfds_t count = 0;
  int inIndex = -1;
  int outIndex = -1;
  int errIndex = -1;
  if (in.open) {
    inIndex = static_cast<int>(count);
    fds[count++] = pollfd{in.pipe.writeHandle(), POLLOUT, 0};
  }
  if (out.open) {
    outIndex = static_cast<int>(count);
    fds[count++] = pollfd{out.pipe.readHandle(), POLLIN, 0};
  }
  if (err.open) {
    errIndex = static_cast<int>(count);
    fds[count++] = pollfd{err.pipe.readHandle(), POLLIN, 0};
  }
  const int ready = ::poll(count > 0 ? fds : nullptr, count, waitMs);
  if (ready <= 0) {
    return;
  }
  if (inIndex >= 0 && fds[inIndex].revents != 0) {
    in.write();
  }
  if (outIndex >= 0 && fds[outIndex].revents != 0) {
    out.drain();
  }
  if (errIndex >= 0 && fds[errIndex].revents != 0) {
    err.drain();
  }
}

std::string trim(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) {
    return "";
  }
  const auto last = text.find_last_not_of(" \t\r\n");
  return text.substr(first, last - first + 1);
}

}  // namespace

std::string resolveExecutable(const std::string& executable) {
  if (executable.empty()) {
    return "";
  }
  Poco::Path found;
  if (executable.find('/') != std::string::npos) {
    found = Poco::Path(executable);
    found.makeAbsolute();
  } else if (!Poco::Path::find(Poco::Environment::get("PATH", ""), executable, found)) {
    return "";
  }
  try {
    Poco::File file(found);
    if (file.exists() && file.isFile() && file.canExecute()) {
      return found.toString();
    }
  } catch (const Poco::Exception&) {
  }
  return "";
}

std::vector<std::string> scratchParents(
    const std::function<std::string(const std::string&)>& environment) {
  std::string runtimeDirectory = environment("RUNTIME_DIRECTORY");
  runtimeDirectory = runtimeDirectory.substr(0, runtimeDirectory.find(':'));
  std::vector<std::string> parents;
  for (const std::string& candidate : {environment("TMPDIR"), runtimeDirectory,
                                       environment("XDG_RUNTIME_DIR"), std::string(P_tmpdir)}) {
    std::string parent = candidate;
    while (parent.size() > 1 && parent.back() == '/') {
      parent.pop_back();
    }
    if (parent.empty() || parent.front() != '/' ||
        std::find(parents.begin(), parents.end(), parent) != parents.end()) {
      continue;
    }
    parents.push_back(std::move(parent));
  }
  return parents;
}

ScratchDirectory::ScratchDirectory()
    : ScratchDirectory(scratchParents(
          [](const std::string& name) { return Poco::Environment::get(name, ""); })) {}

ScratchDirectory::ScratchDirectory(const std::vector<std::string>& parents) {
  // mkdtemp(3), not Poco::TemporaryFile::tempName(): Poco's names are the pid
  // and a per-process counter, so a directory left behind by a killed daemon
  // is the very name the next process with that pid (pids wrap at
  // /proc/sys/kernel/pid_max) takes for its own first temporary file. mkdtemp
  // picks a random name, creates it atomically (never adopting an existing
  // one) and with mode 0700: prompts and answers are the person's text.
  std::string failures;
  for (const std::string& parent : parents) {
    std::string pattern = (parent == "/" ? "" : parent) + "/antidrift-XXXXXX";
    if (::mkdtemp(pattern.data()) != nullptr) {
      path_ = std::move(pattern);
      return;
    }
    failures += (failures.empty() ? "" : "; ") + parent + ": " + std::strerror(errno);
  }
  throw Poco::CreateFileException("cannot create a scratch directory",
                                  failures.empty() ? "no place to try" : failures);
}

ScratchDirectory::~ScratchDirectory() {
  try {
    Poco::File(path_).remove(true);
  } catch (const Poco::Exception&) {
    // Best effort: a process that escaped the group may still write in it.
  }
}

std::string sanitizeUtf8(const std::string& text) {
  static const Poco::UTF8Encoding kEncoding;
  const Poco::TextEncoding::CharacterMap& map = kEncoding.characterMap();
  const auto* bytes = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t size = text.size();
  std::string result;
  result.reserve(size);
  std::size_t position = 0;
  while (position < size) {
    const int kind = map[bytes[position]];
    if (kind >= 0) {  // a single-byte character
      result.push_back(static_cast<char>(bytes[position]));
      ++position;
      continue;
    }
    const auto length = static_cast<std::size_t>(-kind);
    if (kind < -1 && length <= size - position &&
        Poco::UTF8Encoding::isLegal(bytes + position, static_cast<int>(length))) {
      result.append(text, position, length);
      position += length;
    } else {
      result.append(kReplacementCharacter);
      ++position;
    }
  }
  return result;
}

std::string shorten(const std::string& text, std::size_t maxBytes) {
  std::string result = trim(text);
  if (result.size() <= maxBytes) {
    return result;
  }
  std::size_t cut = maxBytes;
  while (cut > 0 && (static_cast<unsigned char>(result[cut]) & 0xC0) == 0x80) {
    --cut;  // do not split a UTF-8 sequence
  }
  result.resize(cut);
  return trim(result) + "\xE2\x80\xA6";  // …
}

std::string lastLine(const std::string& text, std::size_t maxBytes) {
  std::size_t end = text.size();
  while (end > 0) {
    const std::size_t newline = text.rfind('\n', end - 1);
    const std::size_t begin = newline == std::string::npos ? 0 : newline + 1;
    const std::string line = trim(text.substr(begin, end - begin));
    if (!line.empty()) {
      return shorten(line, maxBytes);
    }
    if (newline == std::string::npos) {
      break;
    }
    end = newline;
  }
  return "";
}

std::string formatSeconds(std::int64_t milliseconds) {
  if (milliseconds % 1000 == 0) {
    return std::to_string(milliseconds / 1000) + " s";
  }
  const std::int64_t tenths = (milliseconds + 50) / 100;
  return std::to_string(tenths / 10) + "." + std::to_string(tenths % 10) + " s";
}

RunResult run(const RunRequest& request) {
  RunResult result;
  const std::string name = request.displayName.empty()
                               ? Poco::Path(request.executable).getFileName()
                               : request.displayName;

  const std::string executable = resolveExecutable(request.executable);
  if (executable.empty()) {
    result.status = RunStatus::NotFound;
    result.error = (name.empty() ? std::string("(no executable)") : name) + " not found";
    return result;
  }
  const std::string setsid = resolveExecutable("setsid");
  if (setsid.empty()) {
    result.status = RunStatus::NotFound;
    result.error = "setsid not found (needed to run " + name + ")";
    return result;
  }

  try {
    const ScratchDirectory workDirectory;

    Poco::Process::Args arguments;
    arguments.reserve(request.arguments.size() + 1);
    arguments.push_back(executable);
    arguments.insert(arguments.end(), request.arguments.begin(), request.arguments.end());
    Poco::Process::Env environment(request.extraEnvironment.begin(),
                                   request.extraEnvironment.end());

    InputStream in;
    in.input = &request.input;
    OutputStream out;
    out.limit = request.maxOutputBytes;
    OutputStream err;
    err.limit = request.maxOutputBytes;

    const Clock::time_point start = Clock::now();
    const Clock::time_point deadline =
        start + Milliseconds(std::max<std::int64_t>(0, request.timeoutMs));

    std::unique_ptr<Poco::ProcessHandle> handle;
    try {
      handle = std::make_unique<Poco::ProcessHandle>(Poco::Process::launch(
          setsid, arguments, workDirectory.path(), &in.pipe, &out.pipe, &err.pipe, environment));
    } catch (const Poco::Exception& e) {
      result.status = RunStatus::FailedToStart;
      result.error = name + " could not start: " + e.displayText();
      return result;
    }
    const int pid = handle->id();
    result.processGroupId = pid;
    setNonBlockingAndCloseOnExec(in.pipe.writeHandle());
    setNonBlockingAndCloseOnExec(out.pipe.readHandle());
    setNonBlockingAndCloseOnExec(err.pipe.readHandle());

    SigpipeBlock sigpipeBlock;
    if (request.input.empty()) {
      in.close();
    }

    bool exited = false;
    bool timedOut = false;
    Clock::time_point drainUntil;
    while (true) {
      const Clock::time_point now = Clock::now();
      if (!exited && hasExited(pid)) {
        exited = true;
        // Helpers the CLI left behind in its group die with it; the unreaped
        // leader keeps the group id from being reused meanwhile.
        signalGroup(pid, SIGKILL);
        in.close();
        drainUntil = now + Milliseconds(kDrainAfterExitMs);
      }
      if (exited && (!out.open && !err.open)) {
        break;
      }
      if (exited && now >= drainUntil) {
        break;  // a process outside the group still holds the pipes: abandon them
      }
      if (!exited && now >= deadline) {
        timedOut = true;
        break;
      }
      const int slice = (out.open || err.open) ? kPollSliceMs : kExitPollSliceMs;
      pump(in, out, err, millisecondsUntil(exited ? drainUntil : deadline, now, slice));
    }

    if (timedOut) {
      signalGroup(pid, SIGTERM);
      in.close();
      const Clock::time_point killAt = Clock::now() + Milliseconds(kTerminateGraceMs);
      while (!hasExited(pid)) {
        const Clock::time_point now = Clock::now();
        if (now >= killAt) {
          break;
        }
        pump(in, out, err, millisecondsUntil(killAt, now, kExitPollSliceMs));
      }
      signalGroup(pid, SIGKILL);
    }

    const int code = handle->wait();  // reaps; the child has exited or got SIGKILL
    out.drain();                      // what is left in the pipes, without blocking
    err.drain();
    out.close();
    err.close();
    in.close();

    if (code >= 256) {
      result.signal = code - 256;
    } else {
      result.exitCode = code;
    }
    result.standardOutput = sanitizeUtf8(out.bytes);
    result.standardError = sanitizeUtf8(err.bytes);

    if (timedOut) {
      result.status = RunStatus::TimedOut;
      result.error = name + " timed out after " + formatSeconds(request.timeoutMs);
    } else {
      result.status = RunStatus::Exited;
      if (result.signal != 0) {
        result.error = name + " was killed by signal " + std::to_string(result.signal);
      } else if (result.exitCode != 0) {
        const std::string detail = lastLine(result.standardError);
        result.error = name + " exited with code " + std::to_string(result.exitCode) +
                       (detail.empty() ? "" : ": " + detail);
      }
    }
    return result;
  } catch (const Poco::Exception& e) {
    result.status = RunStatus::FailedToStart;
    result.error = name + " could not run: " + e.displayText();
    return result;
  }
}

}  // namespace antidrift::runner

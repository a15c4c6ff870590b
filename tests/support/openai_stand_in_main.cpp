/// @file openai_stand_in_main.cpp
/// `openai_stand_in`: the stand-in OpenAI-compatible server (openai_stand_in.h)
/// as a program, for end-to-end tests, the latency bench and the daemon's
/// `ai.backend = auto` tests (issue 18 item 5).
///
///   openai_stand_in [--port N] [--mode M] [--model NAME]... [--delay-ms N]
///                   [--off-task WORD]... [--print-port]
///
/// Listens on 127.0.0.1:N (0, the default: an ephemeral port); with
/// --print-port prints the port and a newline on stdout once it listens; then
/// serves until SIGTERM or SIGINT. Exit 2 on a bad argument, 1 when it cannot
/// listen.

#include <csignal>
#include <cstdlib>
#include <iostream>
#include <string>

#include <Poco/Exception.h>

#include "support/openai_stand_in.h"

namespace {

int usage(const std::string& problem) {
  std::cerr << "openai_stand_in: " << problem
            << "\nusage: openai_stand_in [--port N] [--mode M] [--model NAME]... [--delay-ms N] "
               "[--off-task WORD]... [--print-port]\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  antidrift::testing::StandInOptions options;
  bool printPort = false;
  bool modelsGiven = false;
  bool wordsGiven = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool hasValue = i + 1 < argc;
    try {
      if (arg == "--print-port") {
        printPort = true;
      } else if (arg == "--port" && hasValue) {
        const int port = std::stoi(argv[++i]);
        if (port < 0 || port > 65535) return usage("--port must be 0-65535");
        options.port = static_cast<std::uint16_t>(port);
      } else if (arg == "--mode" && hasValue) {
        options.mode = argv[++i];
      } else if (arg == "--model" && hasValue) {
        if (!modelsGiven) options.models.clear();
        modelsGiven = true;
        options.models.push_back(argv[++i]);
      } else if (arg == "--delay-ms" && hasValue) {
        options.delayMs = std::stoll(argv[++i]);
      } else if (arg == "--off-task" && hasValue) {
        if (!wordsGiven) options.offTaskWords.clear();
        wordsGiven = true;
        options.offTaskWords.push_back(argv[++i]);
      } else {
        return usage("unknown or incomplete argument " + arg);
      }
    } catch (const std::exception&) {
      return usage("bad number after " + arg);
    }
  }

  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  // Block them in every thread (the server's threads inherit the mask), then wait.
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  try {
    antidrift::testing::OpenAiStandIn server(options);
    if (printPort) {
      std::cout << server.port() << std::endl;
    }
    int received = 0;
    sigwait(&signals, &received);
  } catch (const Poco::Exception& e) {
    std::cerr << "openai_stand_in: " << e.displayText() << "\n";
    return 1;
  }
  return 0;
}

/// @file main.cpp
/// Entry point of antidriftd (docs/DESIGN.md §10, §12). Everything else is in the
/// antidrift_server library so tests can link it.
#include <csignal>
#include <iostream>
#include <string>
#include <vector>

#include <Poco/AutoPtr.h>

#include "server/daemon.h"
#include "server/label_command.h"
#include "server/replay_command.h"

int main(int argc, char** argv) {
  // `antidriftd replay FILE …` (issue 8 item 1): a one-shot command, no daemon.
  if (argc > 1 && std::string(argv[1]) == "replay") {
    return antidrift::runReplayCommand(std::vector<std::string>(argv + 2, argv + argc), std::cout,
                                       std::cerr);
  }
  // `antidriftd label FILE --next …` (issue 16 item 1): the windows of a day to label.
  if (argc > 1 && std::string(argv[1]) == "label") {
    return antidrift::runLabelCommand(std::vector<std::string>(argv + 2, argv + argc), std::cout,
                                      std::cerr);
  }
  // docs/TECH-NOTES.md §2.2: a write to a closed socket must fail with EPIPE.
  std::signal(SIGPIPE, SIG_IGN);
  Poco::AutoPtr<antidrift::Daemon> daemon = new antidrift::Daemon;
  return daemon->run(argc, argv);
}

/// @file main.cpp
/// Entry point of antidriftd (DESIGN §10, §12). Everything else is in the
/// antidrift_server library so tests can link it.
#include <csignal>

#include <Poco/AutoPtr.h>

#include "server/daemon.h"

int main(int argc, char** argv) {
  // TECH-NOTES §2.2: a write to a closed socket must fail with EPIPE.
  std::signal(SIGPIPE, SIG_IGN);
  Poco::AutoPtr<antidrift::Daemon> daemon = new antidrift::Daemon;
  return daemon->run(argc, argv);
}

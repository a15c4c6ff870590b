/// @file main.cpp
/// Entry point of `antidrift`, the command-line client (issue 10 item 2).
#include <csignal>
#include <iostream>

#include <Poco/AutoPtr.h>
#include <Poco/Util/OptionException.h>

#include "cli/cli_application.h"

int main(int argc, char** argv) {
  // A bar or a pipe that goes away must not kill `watch` mid-write.
  std::signal(SIGPIPE, SIG_IGN);
  Poco::AutoPtr<antidrift::cli::CliApplication> application = new antidrift::cli::CliApplication;
  try {
    application->init(argc, argv);
  } catch (const Poco::Util::OptionException& error) {
    std::cerr << "antidrift: " << error.displayText() << "; see antidrift --help" << std::endl;
    return Poco::Util::Application::EXIT_USAGE;
  }
  return application->run();
}

// antidrift-watch: the status bars' persistent command (issue 20 item 2,
// cli/watch_client.h). Started by `antidrift watch --format …`, which reads
// the configuration and passes what it found as arguments; not meant to be
// run by hand. Exit codes: 0 ended by a signal or by the bar closing its
// output; 64 bad arguments; 71 the process cannot set up its descriptors.
#include <unistd.h>

#include <cstdio>
#include <string>
#include <system_error>
#include <vector>

#include "cli/watch_client.h"

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  std::string error;
  const std::optional<antidrift::cli::WatchClientOptions> options =
      antidrift::cli::parseWatchClientArguments(args, error);
  if (!options) {
    std::fprintf(stderr,
                 "antidrift-watch: %s (it is started by `antidrift watch --format "
                 "waybar|i3blocks|polybar`)\n",
                 error.c_str());
    return 64;
  }
  try {
    return antidrift::cli::runWatchClient(*options, STDOUT_FILENO, STDERR_FILENO);
  } catch (const std::system_error& failure) {
    std::fprintf(stderr, "antidrift-watch: %s\n", failure.what());
    return 71;
  }
}

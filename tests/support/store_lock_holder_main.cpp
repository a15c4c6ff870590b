// antidrift_store_lock_holder DIR: holds <DIR>/lock the way the CLI's offline
// `antidrift token --rotate` does (StoreLock, its pid written in the file)
// for as long as its stdin stays open, so a test decides exactly when the
// lock is let go (docs/SECURITY.md "N5", "N6"). Prints "held <pid>" once it
// holds the lock; exit 0 after releasing it, 75 when another process holds
// it, 73 when it cannot be taken at all.
#include <unistd.h>

#include <iostream>
#include <stdexcept>
#include <string>

#include "server/store_lock.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: antidrift_store_lock_holder DIR" << std::endl;
    return 64;
  }
  try {
    antidrift::StoreLockAttempt attempt = antidrift::StoreLock::tryAcquire(argv[1]);
    if (!attempt.lock) {
      std::cerr << "the lock is held by pid " << attempt.holderPid << std::endl;
      return 75;
    }
    std::cout << "held " << ::getpid() << std::endl;
    for (std::string line; std::getline(std::cin, line);) {
      // Only the end of stdin lets the lock go.
    }
  } catch (const std::runtime_error& error) {
    std::cerr << error.what() << std::endl;
    return 73;
  }
  return 0;
}

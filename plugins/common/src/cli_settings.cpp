#include "antidrift/runner/cli_settings.h"

#include <stdexcept>

#include <Poco/String.h>
#include <Poco/StringTokenizer.h>

#include "antidrift/runner/process_runner.h"

namespace antidrift::runner {
namespace {

std::string valueOf(const std::map<std::string, std::string>& settings, const std::string& key) {
  const auto it = settings.find(key);
  return it == settings.end() ? std::string() : Poco::trim(it->second);
}

}  // namespace

CliSettings readCliSettings(const std::map<std::string, std::string>& settings,
                            const std::string& defaultCommand) {
  CliSettings result;
  result.command = valueOf(settings, "command");
  if (result.command.empty()) {
    result.command = defaultCommand;
  }
  const Poco::StringTokenizer arguments(valueOf(settings, "args"), " \t",
                                        Poco::StringTokenizer::TOK_IGNORE_EMPTY);
  result.extraArguments.assign(arguments.begin(), arguments.end());
  result.model = valueOf(settings, "model");
  if (result.model.find_first_of(" \t\r\n") != std::string::npos ||
      (!result.model.empty() && result.model.front() == '-')) {
    throw std::invalid_argument("invalid model name \"" + result.model + "\"");
  }
  return result;
}

std::string missingCommandMessage(const CliSettings& settings, const std::string& backendName,
                                  const std::string& installAdvice) {
  if (!resolveExecutable(settings.command).empty()) {
    return "";
  }
  const bool isPath = settings.command.find('/') != std::string::npos;
  return settings.command + (isPath ? " not found or not executable: " : " not found on PATH: ") +
         installAdvice + " and restart AntiDrift, or set ai." + backendName +
         ".command / ai.backend";
}

}  // namespace antidrift::runner

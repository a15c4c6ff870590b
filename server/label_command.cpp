#include "server/label_command.h"

#include <optional>
#include <sstream>
#include <stdexcept>

#include <Poco/String.h>

#include "antidrift/replay/label_list.h"
#include "antidrift/replay/replay.h"

namespace antidrift {
namespace {

constexpr int kUsage = 64;  // EX_USAGE, as every other command
constexpr int kInput = 1;

const char* kUsageText =
    "usage: antidriftd label FILE --next TEXT [--done TEXT] [--allowed APP,APP...] > labels.jsonl\n"
    "FILE: an ActivityWatch export (its \"buckets\" JSON) or a JSONL of observations.\n"
    "Lists its distinct windows, most time first, one JSON object a line:\n"
    "{\"app\", \"title\", \"label\": \"\", \"seconds\"}. Fill each label with on, off or neutral\n"
    "for the commitment (lock screens and unreadable windows come prefilled neutral), then\n"
    "score a replay against them: antidriftd replay FILE --next TEXT ... --labels labels.jsonl\n";

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Arguments {
  std::string file;
  replay::CommitmentRange commitment;
  bool hasNext = false;
};

Arguments parseArguments(const std::vector<std::string>& args) {
  Arguments parsed;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= args.size()) throw UsageError(arg + " needs a value");
      return args[++i];
    };
    if (arg == "--next") {
      parsed.commitment.nextAction = value();
      parsed.hasNext = true;
    } else if (arg == "--done") {
      parsed.commitment.successCondition = value();
    } else if (arg == "--allowed") {
      std::istringstream list(value());
      for (std::string app; std::getline(list, app, ',');) {
        app = Poco::trim(app);
        if (!app.empty()) parsed.commitment.allowedApps.push_back(app);
      }
    } else if (!arg.empty() && arg[0] == '-') {
      throw UsageError("unknown option " + arg);
    } else if (parsed.file.empty()) {
      parsed.file = arg;
    } else {
      throw UsageError("one FILE only, got \"" + parsed.file + "\" and \"" + arg + "\"");
    }
  }
  if (parsed.file.empty()) throw UsageError("FILE is missing");
  if (!parsed.hasNext) {
    throw UsageError("the commitment the labels are for is needed: --next TEXT");
  }
  if (Poco::trim(parsed.commitment.nextAction).empty()) throw UsageError("--next is empty");
  return parsed;
}

}  // namespace

int runLabelCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  if (!args.empty() && (args[0] == "--help" || args[0] == "-h")) {
    out << kUsageText;
    return 0;
  }
  Arguments arguments;
  try {
    arguments = parseArguments(args);
  } catch (const UsageError& error) {
    err << "antidriftd label: " << error.what() << "\n" << kUsageText;
    return kUsage;
  }
  try {
    const replay::Activity activity = replay::loadActivity(arguments.file);
    out << replay::labelsTemplate(replay::windowsToLabel(activity, Settings{}),
                                  arguments.commitment);
  } catch (const replay::ReplayError& error) {
    err << "antidriftd label: " << error.what() << "\n";
    return kInput;
  }
  out.flush();
  return 0;
}

}  // namespace antidrift

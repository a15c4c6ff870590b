#include "server/replay_command.h"

#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include <Poco/AutoPtr.h>
#include <Poco/String.h>
#include <Poco/Util/LayeredConfiguration.h>
#include <Poco/Util/MapConfiguration.h>

#include "antidrift/plugin/loader.h"
#include "antidrift/replay/label_score.h"
#include "antidrift/replay/replay.h"
#include "server/config.h"

namespace antidrift {
namespace {

constexpr int kUsage = 64;  // EX_USAGE, as every other command
constexpr int kInput = 1;
constexpr int kConfig = 78;  // EX_CONFIG, as the daemon

const char* kUsageText =
    "usage: antidriftd replay FILE [--next TEXT [--done TEXT] [--allowed APP,APP...] |\n"
    "                               --commitments FILE] [--json]\n"
    "                               [--backend none|fake|claude|codex|openai] "
    "[--baseline|--no-baseline]\n"
    "                               [--labels FILE [--oracle]] [--local-judge]\n"
    "                               [--config FILE] [-D key=value]...\n"
    "FILE: an ActivityWatch export (its \"buckets\" JSON) or a JSONL of observations.\n"
    "--commitments FILE: one commitment a line, FROM | TO | next action | success condition |\n"
    "app, app (FROM and TO in ISO 8601 or *). The AI is off unless --backend names one.\n"
    "--labels FILE: score the replay against labelled windows (JSONL {\"app\", \"title\",\n"
    "\"label\": on|off|neutral}), over active time; `antidriftd label` lists the windows to "
    "label.\n"
    "--oracle: the judge and the nudge answer from the labels instead of a model (needs\n"
    "--labels, no --backend): what the engine itself loses with a perfect judge.\n"
    "--local-judge: the judge keeps prompts on this machine, as a local model server does, so\n"
    "private windows no local rule decides are judged too (AI off: no effect).\n";

struct Arguments {
  std::string file;
  std::optional<std::string> next;
  std::string done;
  std::vector<std::string> allowed;
  std::optional<std::string> commitmentsFile;
  bool json = false;
  std::string backend = "none";
  std::optional<bool> baseline;
  std::optional<std::string> configFile;
  std::optional<std::string> labelsFile;
  bool oracle = false;
  bool localJudge = false;
  bool backendNamed = false;
  std::map<std::string, std::string> defines;
};

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
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
      parsed.next = value();
    } else if (arg == "--done") {
      parsed.done = value();
    } else if (arg == "--allowed") {
      std::istringstream list(value());
      for (std::string app; std::getline(list, app, ',');) {
        app = Poco::trim(app);
        if (!app.empty()) parsed.allowed.push_back(app);
      }
    } else if (arg == "--commitments") {
      parsed.commitmentsFile = value();
    } else if (arg == "--json") {
      parsed.json = true;
    } else if (arg == "--backend") {
      parsed.backend = value();
      parsed.backendNamed = true;
    } else if (arg == "--baseline") {
      parsed.baseline = true;
    } else if (arg == "--no-baseline") {
      parsed.baseline = false;
    } else if (arg == "--labels") {
      parsed.labelsFile = value();
    } else if (arg == "--oracle") {
      parsed.oracle = true;
    } else if (arg == "--local-judge") {
      parsed.localJudge = true;
    } else if (arg == "--config") {
      parsed.configFile = value();
    } else if (arg == "-D" || arg == "--define" || arg.rfind("-D", 0) == 0) {
      const std::string define = arg == "-D" || arg == "--define" ? value() : arg.substr(2);
      const std::size_t equals = define.find('=');
      const std::string key = Poco::trim(define.substr(0, equals));
      if (equals == std::string::npos || key.empty()) {
        throw UsageError("-D needs key=value, got \"" + define + "\"");
      }
      parsed.defines[key] = define.substr(equals + 1);
    } else if (!arg.empty() && arg[0] == '-') {
      throw UsageError("unknown option " + arg);
    } else if (parsed.file.empty()) {
      parsed.file = arg;
    } else {
      throw UsageError("one FILE only, got \"" + parsed.file + "\" and \"" + arg + "\"");
    }
  }
  if (parsed.file.empty()) throw UsageError("FILE is missing");
  if (parsed.next && parsed.commitmentsFile) {
    throw UsageError("--next and --commitments cannot be used together");
  }
  if (!parsed.next && !parsed.commitmentsFile) {
    throw UsageError("a commitment is needed: --next TEXT (with --allowed) or --commitments FILE");
  }
  if (parsed.next && Poco::trim(*parsed.next).empty()) throw UsageError("--next is empty");
  if (parsed.oracle && !parsed.labelsFile) {
    throw UsageError("--oracle answers from the labels: it needs --labels FILE");
  }
  if (parsed.oracle && parsed.backendNamed && parsed.backend != "none") {
    throw UsageError("--oracle answers in place of a backend: drop --backend " + parsed.backend);
  }
  return parsed;
}

}  // namespace

int runReplayCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  if (!args.empty() && (args[0] == "--help" || args[0] == "-h")) {
    out << kUsageText;
    return 0;
  }
  Arguments arguments;
  try {
    arguments = parseArguments(args);
  } catch (const UsageError& error) {
    err << "antidriftd replay: " << error.what() << "\n" << kUsageText;
    return kUsage;
  }

  // The configuration, read as the daemon reads it; the backend is the one named here.
  DaemonConfig config;
  try {
    const ConfigEnvironment env = ConfigEnvironment::fromProcess();
    Poco::AutoPtr<Poco::Util::LayeredConfiguration> layered = new Poco::Util::LayeredConfiguration;
    Poco::AutoPtr<Poco::Util::MapConfiguration> defines = new Poco::Util::MapConfiguration;
    std::set<std::string> commandLineKeys;
    for (const auto& [key, value] : arguments.defines) {
      defines->setString(key, value);
      commandLineKeys.insert(key);
    }
    defines->setString("ai.backend", arguments.backend);
    commandLineKeys.insert("ai.backend");
    layered->add(defines, -100, false);
    std::optional<std::string> file = arguments.configFile;
    if (!file) file = defaultConfigFile(env);
    if (file) layered->add(loadConfigurationFile(*file), 0, false);
    config = readDaemonConfig(*layered, env, commandLineKeys);
  } catch (const ConfigError& error) {
    err << "antidriftd replay: " << error.what() << "\n";
    return kConfig;
  }

  replay::ReplayOptions options;
  options.settings = config.settings;
  replay::Activity activity;
  std::optional<replay::Labels> labels;
  try {
    if (arguments.labelsFile) labels = replay::loadLabels(*arguments.labelsFile);
    if (arguments.commitmentsFile) {
      std::ifstream in(*arguments.commitmentsFile);
      if (!in) {
        throw replay::ReplayError("cannot read " + *arguments.commitmentsFile +
                                  " (missing or not readable)");
      }
      options.commitments = replay::parseCommitments(in, *arguments.commitmentsFile);
    } else {
      replay::CommitmentRange range;
      range.fromMs = std::numeric_limits<std::int64_t>::min();
      range.toMs = std::numeric_limits<std::int64_t>::max();
      range.nextAction = *arguments.next;
      range.successCondition = arguments.done;
      range.allowedApps = arguments.allowed;
      options.commitments.push_back(std::move(range));
    }
    activity = replay::loadActivity(arguments.file);
  } catch (const replay::ReplayError& error) {
    err << "antidriftd replay: " << error.what() << "\n";
    return kInput;
  }

  plugin::PluginLoader loader;
  std::shared_ptr<Backend> backend;
  if (config.aiBackend != "none") {
    // The daemon's search order: the system's plugin folder, then the person's.
    std::string folder = plugin::PluginLoader::locate(config.aiBackend, pluginSearchPath(config));
    if (folder.empty()) folder = config.pluginDir;
    plugin::LoadResult loaded = loader.load(config.aiBackend, folder, config.aiBackendSettings);
    if (!loaded.loaded()) {
      err << "antidriftd replay: the AI backend \"" << config.aiBackend
          << "\" did not load: " << loaded.error << "\n";
      return kInput;
    }
    backend = loaded.backend;
  }
  options.backend = backend.get();
  options.oracle = arguments.oracle && labels ? &*labels : nullptr;
  options.localJudge = arguments.localJudge;
  // The text report cuts its timeline where nothing was recorded (the trace's
  // events say where); the label scorer reads the trace too.
  options.keepTrace = labels.has_value() || !arguments.json;

  try {
    const replay::ReplayReport report = replay::runReplay(activity, options);
    std::optional<replay::ReplayReport> baseline;
    if ((backend || options.oracle) && arguments.baseline.value_or(config.aiBackend == "fake")) {
      replay::ReplayOptions every = options;
      every.judgeEveryStableTitle = true;
      every.keepTimeline = false;
      baseline = replay::runReplay(activity, every);
    }
    const replay::ReplayReport* compared = baseline ? &*baseline : nullptr;
    std::optional<replay::LabelScore> score;
    if (labels) score = replay::scoreLabels(report, *labels);
    const replay::LabelScore* scored = score ? &*score : nullptr;
    if (arguments.json) {
      out << replay::reportJson(report, compared, scored) << "\n";
    } else {
      out << "antidriftd replay " << arguments.file
          << " (AI: " << (options.oracle ? "the label oracle" : config.aiBackend) << ")\n"
          << replay::reportText(report, compared);
      if (scored) out << "\n" << replay::labelScoreText(*scored);
    }
  } catch (const replay::ReplayError& error) {
    err << "antidriftd replay: " << error.what() << "\n";
    return kInput;
  }
  out.flush();
  return 0;
}

}  // namespace antidrift

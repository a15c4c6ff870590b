#include "antidrift/plugin/loader.h"

#include <exception>
#include <regex>
#include <stdexcept>
#include <utility>

#include <Poco/DirectoryIterator.h>
#include <Poco/Exception.h>
#include <Poco/File.h>
#include <Poco/FileStream.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>
#include <Poco/Path.h>
#include <Poco/SharedLibrary.h>

namespace antidrift::plugin {
namespace {

constexpr const char* kAbiSymbol = "antidriftBackendAbiVersion";
constexpr const char* kClassSymbol = "antidriftBackendClass";
constexpr const char* kPrefix = "antidrift-";
constexpr const char* kLibrarySuffix = ".so";
constexpr const char* kMetadataSuffix = ".json";

using AbiVersionFunction = int (*)();
using ClassNameFunction = const char* (*)();

bool isValidName(const std::string& name) {
  static const std::regex kPattern("[a-z0-9_-]+");
  return std::regex_match(name, kPattern);
}

LoadResult failure(std::string message) {
  LoadResult result;
  result.error = std::move(message);
  return result;
}

/// What the probe read from the library before it was closed again.
struct ProbeResult {
  std::string className;
  std::string error;
};

/// Opens `path` with a plain SharedLibrary (RTLD_LOCAL), checks the ABI
/// entry point and reads the class name, then closes it (docs/TECH-NOTES.md §1.2).
ProbeResult probe(const std::string& path, const std::string& fileName) {
  ProbeResult result;
  Poco::SharedLibrary library;
  try {
    library.load(path, Poco::SharedLibrary::SHLIB_LOCAL);
  } catch (const Poco::Exception& e) {
    result.error = "cannot load " + path + ": " + e.displayText();
    return result;
  }
  if (!library.hasSymbol(kAbiSymbol)) {
    result.error = path + " is not an AntiDrift plugin (no " + kAbiSymbol + ")";
  } else {
    auto abiVersion = reinterpret_cast<AbiVersionFunction>(library.getSymbol(kAbiSymbol));
    const int version = abiVersion();
    if (version != ANTIDRIFT_BACKEND_ABI_VERSION) {
      result.error = fileName + " has ABI version " + std::to_string(version) +
                     ", daemon expects " + std::to_string(ANTIDRIFT_BACKEND_ABI_VERSION);
    } else if (!library.hasSymbol(kClassSymbol)) {
      result.error = path + " is not an AntiDrift plugin (no " + kClassSymbol + ")";
    } else {
      auto className = reinterpret_cast<ClassNameFunction>(library.getSymbol(kClassSymbol));
      const char* text = className();
      result.className = text != nullptr ? text : "";
      if (result.className.empty()) {
        result.error = fileName + " names no backend class";
      }
    }
  }
  library.unload();
  return result;
}

std::string readFile(const std::string& path) {
  Poco::FileInputStream stream(path);
  std::string text;
  char buffer[4096];
  while (stream.read(buffer, sizeof buffer) || stream.gcount() > 0) {
    text.append(buffer, static_cast<std::size_t>(stream.gcount()));
  }
  return text;
}

/// Fills `info` from the metadata file; sets `problem` on any defect.
void readMetadata(const std::string& path, BackendInfo& info) {
  Poco::JSON::Object::Ptr object;
  try {
    Poco::JSON::Parser parser;
    Poco::Dynamic::Var value = parser.parse(readFile(path));
    object = value.extract<Poco::JSON::Object::Ptr>();
  } catch (const Poco::Exception& e) {
    info.problem = "invalid metadata: " + e.displayText();
    return;
  } catch (const std::exception& e) {
    info.problem = std::string("invalid metadata: ") + e.what();
    return;
  }
  if (object.isNull()) {
    info.problem = "invalid metadata: not a JSON object";
    return;
  }
  try {
    const std::string declaredName = object->optValue<std::string>("name", "");
    info.abi = object->optValue<int>("abi", 0);
    info.description = object->optValue<std::string>("description", "");
    info.prompts = object->optValue<std::string>("prompts", "");
    if (declaredName != info.name) {
      info.problem = "metadata names \"" + declaredName + "\"";
    } else if (info.abi != ANTIDRIFT_BACKEND_ABI_VERSION) {
      info.problem = "ABI version " + std::to_string(info.abi) + ", daemon expects " +
                     std::to_string(ANTIDRIFT_BACKEND_ABI_VERSION);
    }
  } catch (const Poco::Exception& e) {
    info.problem = "invalid metadata: " + e.displayText();
  }
}

/// The directory as text without the trailing separator, for messages.
std::string displayPath(const Poco::Path& directory) {
  std::string text = directory.toString();
  if (text.size() > 1 && text.back() == '/') {
    text.pop_back();
  }
  return text;
}

/// True when the file starts with the ELF magic bytes. Reads four bytes and
/// maps nothing, so a listing can name a file that cannot be a library
/// without running any code of it.
bool hasElfHeader(const std::string& path) {
  try {
    Poco::FileInputStream stream(path);
    char magic[4] = {};
    stream.read(magic, sizeof magic);
    return stream.gcount() == 4 && magic[0] == '\x7f' && magic[1] == 'E' && magic[2] == 'L' &&
           magic[3] == 'F';
  } catch (const Poco::Exception&) {
    return false;  // unreadable: it cannot be loaded either
  }
}

bool endsWith(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

LoadResult PluginLoader::load(const std::string& name, const std::string& pluginDir,
                              const std::map<std::string, std::string>& settings) {
  if (name == "none") {
    return {};
  }
  if (!isValidName(name)) {
    return failure("invalid backend name \"" + name + "\"");
  }
  try {
    Poco::Path directory(pluginDir);
    directory.makeDirectory();
    directory.makeAbsolute();
    const std::string fileName = kPrefix + name + kLibrarySuffix;
    const std::string path = Poco::Path(directory, fileName).toString();
    if (!Poco::File(path).exists()) {
      return failure("no plugin " + fileName + " in " + displayPath(directory));
    }

    // Issue 18 item 3: where prompts go, from the metadata beside the library.
    BackendInfo info;
    info.name = name;
    const Poco::File metadata(Poco::Path(directory, kPrefix + name + kMetadataSuffix));
    if (metadata.exists()) readMetadata(metadata.path(), info);
    const auto localOnly = settings.find("local_only");
    if (localOnly != settings.end() && localOnly->second == "true" && info.prompts != "local") {
      return failure("privacy.local_only is on and backend " + name +
                     (info.prompts.empty()
                          ? " declares no \"prompts\" in its plugin.json"
                          : " sends prompts off this machine (plugin.json \"prompts\": \"" +
                                info.prompts + "\")"));
    }

    std::lock_guard<std::mutex> lock(mutex_);
    const ProbeResult probed = probe(path, fileName);
    if (!probed.error.empty()) {
      return failure(probed.error);
    }
    try {
      classLoader_.loadLibrary(path);
    } catch (const Poco::Exception& e) {
      return failure("cannot load " + path + ": " + e.displayText());
    }
    if (classLoader_.findClass(probed.className) == nullptr) {
      return failure(fileName + " does not export class " + probed.className);
    }
    // MetaObject::destroy only deletes objects handed to autoDelete(), so the
    // object from create() is ours: a plain delete runs the plugin's virtual
    // destructor. The library is never unloaded, so this stays valid.
    std::shared_ptr<Backend> backend(classLoader_.create(probed.className),
                                     [](Backend* object) { delete object; });
    const std::string reportedName = backend->name();
    if (reportedName != name) {
      return failure(fileName + " reports backend name \"" + reportedName + "\"");
    }
    try {
      backend->configure(settings);
    } catch (const BackendError& e) {
      return failure(e.what());
    }
    LoadResult result;
    result.prompts = info.prompts;
    result.destination = backend->destination();
    if (result.destination.empty()) result.destination = info.prompts;
    result.backend = std::move(backend);
    return result;
  } catch (const Poco::Exception& e) {
    return failure("backend " + name + ": " + e.displayText());
  } catch (const std::exception& e) {
    return failure("backend " + name + ": " + e.what());
  }
}

std::string PluginLoader::locate(const std::string& name, const std::vector<std::string>& folders) {
  if (!isValidName(name)) return "";
  for (const std::string& folder : folders) {
    try {
      Poco::Path directory(folder);
      directory.makeDirectory();
      if (Poco::File(Poco::Path(directory, kPrefix + name + kLibrarySuffix)).exists()) {
        return folder;
      }
    } catch (const Poco::Exception&) {
      // An unreadable or malformed folder holds nothing we can load.
    }
  }
  return "";
}

std::vector<BackendInfo> PluginLoader::listBackends(const std::string& pluginDir) {
  Poco::Path directory(pluginDir);
  directory.makeDirectory();
  directory.makeAbsolute();
  Poco::File directoryFile(directory);
  if (!directoryFile.exists() || !directoryFile.isDirectory()) {
    throw std::runtime_error("plugin directory " + displayPath(directory) + " does not exist");
  }

  std::map<std::string, BackendInfo> byName;
  const std::string prefix = kPrefix;
  for (Poco::DirectoryIterator it(directory), end; it != end; ++it) {
    const std::string fileName = it.name();
    if (fileName.rfind(prefix, 0) != 0) {
      continue;
    }
    for (const std::string suffix : {kLibrarySuffix, kMetadataSuffix}) {
      if (!endsWith(fileName, suffix)) {
        continue;
      }
      const std::string name =
          fileName.substr(prefix.size(), fileName.size() - prefix.size() - suffix.size());
      if (isValidName(name)) {
        byName[name].name = name;
      }
    }
  }

  std::vector<BackendInfo> result;
  for (auto& [name, info] : byName) {
    const Poco::File library(Poco::Path(directory, prefix + name + kLibrarySuffix));
    const Poco::File metadata(Poco::Path(directory, prefix + name + kMetadataSuffix));
    info.libraryPresent = library.exists();
    if (metadata.exists()) {
      readMetadata(metadata.path(), info);
    } else {
      info.problem = "no metadata file";
    }
    if (info.problem.empty() && !info.libraryPresent) {
      info.problem = "no " + prefix + name + kLibrarySuffix;
    } else if (info.problem.empty() && !hasElfHeader(library.path())) {
      info.problem = prefix + name + kLibrarySuffix + " is not a shared library (no ELF header)";
    }
    result.push_back(std::move(info));
  }
  return result;
}

}  // namespace antidrift::plugin

/// @file loader.h
/// Loads AI backend plugins by name (docs/DESIGN.md §8, docs/TECH-NOTES.md §1, docs/CONVENTIONS.md
/// "The plugin boundary") and lists the installed ones from their metadata.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <Poco/ClassLoader.h>

#include "antidrift/backend.h"

namespace antidrift::plugin {

/// The outcome of `PluginLoader::load`. Exactly one of three shapes:
///  - loaded: `backend` set, `error` empty;
///  - switched off (name "none"): `backend` null, `error` empty;
///  - failed: `backend` null, `error` a one-sentence message for the log and
///    the startup banner (the daemon then runs without AI, docs/DESIGN.md §12).
struct LoadResult {
  /// The configured backend, or null when off or failed. Its deleter deletes
  /// the plugin object; the library stays mapped for the life of the process,
  /// so the pointer may outlive the loader.
  std::shared_ptr<Backend> backend;
  /// Empty on success and when off; otherwise why loading failed.
  std::string error;
  /// Where the loaded backend sends prompts (issue 18 item 3): plugin.json's
  /// "prompts" ("local" | "remote"; "" when the metadata names none).
  std::string prompts;
  /// The loaded backend's destination() after configure(), else `prompts`.
  std::string destination;

  /// True when a backend was loaded and configured.
  bool loaded() const { return backend != nullptr; }
};

/// What `listBackends` found for one plugin in the plugin directory, read
/// from its metadata file `antidrift-<name>.json` without opening any library.
struct BackendInfo {
  /// The `<name>` of `antidrift-<name>.json` / `antidrift-<name>.so`.
  std::string name;
  /// The metadata's "abi" value; 0 when unknown (no or invalid metadata).
  int abi = 0;
  /// The metadata's "description"; empty when unknown.
  std::string description;
  /// The metadata's "prompts": "local" | "remote"; empty when unknown
  /// (issue 18 item 3).
  std::string prompts;
  /// True when `antidrift-<name>.so` exists beside the metadata.
  bool libraryPresent = false;
  /// Empty when the plugin looks loadable; otherwise a short note such as
  /// "no antidrift-x.so", "no metadata file", "invalid metadata: …",
  /// "ABI version 2, daemon expects 1", "metadata names \"y\"" or
  /// "antidrift-x.so is not a shared library (no ELF header)".
  std::string problem;
};

/// Loads backend plugins from shared objects `antidrift-<name>.so`.
///
/// One per daemon. Libraries are loaded once and never unloaded while the
/// process runs (docs/TECH-NOTES.md §1.3): destroying the loader leaves them mapped, so
/// backends it returned stay valid. Thread-safe: `load` serialises on a mutex.
class PluginLoader {
 public:
  /// Creates a loader that has loaded nothing yet.
  PluginLoader() = default;
  PluginLoader(const PluginLoader&) = delete;
  PluginLoader& operator=(const PluginLoader&) = delete;
  /// Forgets the manifests; the libraries stay mapped and every backend
  /// handed out stays usable (Poco::SharedLibrary never closes on destruction).
  ~PluginLoader() = default;

  /// Loads, creates and configures backend `name` from `pluginDir`.
  ///
  /// Steps and their error sentences (docs/DESIGN.md §8):
  ///  - `name` must match `[a-z0-9_-]+`: `invalid backend name "<name>"`;
  ///    "none" returns switched off (no backend, no error);
  ///  - the file is `<absolute pluginDir>/antidrift-<name>.so`:
  ///    `no plugin antidrift-<name>.so in <dir>`;
  ///  - probed with Poco::SharedLibrary, never creating anything:
  ///    `cannot load <path>: <dlerror>`,
  ///    `<path> is not an AntiDrift plugin (no antidriftBackendAbiVersion)`,
  ///    `antidrift-<name>.so has ABI version N, daemon expects M`;
  ///  - loaded through Poco::ClassLoader<Backend>: `cannot load <path>: <displayText>`
  ///    (e.g. "Manifest class mismatch" for a stale plugin); the class named by
  ///    `antidriftBackendClass()` must be in the manifest:
  ///    `antidrift-<name>.so does not export class <Class>`;
  ///  - the backend's `name()` must equal `name`:
  ///    `antidrift-<name>.so reports backend name "<other>"`;
  ///  - with settings["local_only"] == "true" (privacy.local_only, issue 18
  ///    item 3), the metadata `antidrift-<name>.json` must declare
  ///    `"prompts": "local"`, checked before configure():
  ///    `privacy.local_only is on and backend <name> sends prompts off this
  ///    machine (plugin.json "prompts": "remote")` (or "declares no
  ///    \"prompts\"" when it has none);
  ///  - `configure(settings)`: the BackendError text verbatim (plugins name
  ///    themselves in it, e.g. "fake: cannot read responses file /x.json: …").
  /// `settings` is the config section `ai.<name>.*` with the prefix stripped,
  /// plus "timeout_s" (backend.h) and "local_only", "local_hosts" (the
  /// daemon passes them to every plugin). On success `prompts` and
  /// `destination` say where prompts go. Never throws.
  LoadResult load(const std::string& name, const std::string& pluginDir,
                  const std::map<std::string, std::string>& settings);

  /// The first folder of `folders` (in order) that holds `antidrift-<name>.so`,
  /// as given; "" when none does or `name` is not a valid backend name. The
  /// daemon passes the system folder first, then the person's (docs/PLUGINS.md
  /// "Where plugins go"). Looks at the file system only (no library is
  /// opened); thread-safe.
  static std::string locate(const std::string& name, const std::vector<std::string>& folders);

  /// Lists the plugins in `pluginDir` (for `antidriftd --list-backends`): one
  /// entry per `antidrift-<name>.json` or `antidrift-<name>.so`, sorted by name,
  /// read from the JSON metadata files {"name", "abi", "description",
  /// "prompts"} and the first four bytes of each library (the ELF header) —
  /// no library is opened. Throws std::runtime_error
  /// "plugin directory <dir> does not exist" when `pluginDir` is not a directory.
  static std::vector<BackendInfo> listBackends(const std::string& pluginDir);

 private:
  std::mutex mutex_;
  Poco::ClassLoader<Backend> classLoader_;
};

}  // namespace antidrift::plugin

/// @file backend.h
/// The Backend ABI: the one header an AntiDrift AI plugin includes (docs/DESIGN.md §8,
/// docs/TECH-NOTES.md §1, docs/CONVENTIONS.md "The plugin boundary").
///
/// A plugin is a shared object `antidrift-<name>.so` built as a CMake MODULE with
/// hidden symbol visibility. It implements `antidrift::Backend` and ends with
/// exactly one `ANTIDRIFT_DECLARE_BACKEND(ClassName)`. The daemon opens it by
/// absolute path, checks `antidriftBackendAbiVersion()` before creating anything,
/// then creates the class through `Poco::ClassLoader<antidrift::Backend>`.
///
/// This header is header-only on purpose: a plugin links with `--no-undefined`
/// against Poco Foundation alone, and the daemon needs no exported symbols.
/// No Poco or other third-party type appears in a signature; only std types
/// cross the boundary, so daemon and plugins must be built with the same
/// compiler and libstdc++.
///
/// The declarations themselves live in `antidrift/backend_abi.h`, which this
/// header includes and which needs no Poco; this header adds the entry points
/// and Poco's manifest (`ANTIDRIFT_DECLARE_BACKEND`). A plugin includes this
/// header alone (issue 15 item 5).
#pragma once

#include <Poco/ClassLibrary.h>

// The ABI's types, version and bump rule (Poco-free, so core's State can
// include them without Poco: issue 15 item 5).
#include "antidrift/backend_abi.h"

/// Declares the plugin's Backend class. Use exactly once per plugin, at file
/// scope, after the class definition. Emits:
///  - `extern "C" int antidriftBackendAbiVersion()`: the ABI version compiled in;
///  - `extern "C" const char* antidriftBackendClass()`: the class's manifest key;
///  - the Poco manifest exporting the class for `Poco::ClassLoader<Backend>`.
#define ANTIDRIFT_DECLARE_BACKEND(ClassName)                        \
  extern "C" POCO_LIBRARY_API int antidriftBackendAbiVersion() {    \
    return ANTIDRIFT_BACKEND_ABI_VERSION;                           \
  }                                                                 \
  extern "C" POCO_LIBRARY_API const char* antidriftBackendClass() { \
    return #ClassName;                                              \
  }                                                                 \
  POCO_BEGIN_MANIFEST(antidrift::Backend)                           \
  POCO_EXPORT_CLASS(ClassName)                                      \
  POCO_END_MANIFEST

/// @file stale_manifest.cpp
/// Test plugin: claims the current ABI version but was "built" against an older
/// interface (its Backend lives in inline namespace abi_v0). Poco's manifest
/// check must reject it ("Manifest class mismatch"), and the loader report it.
#include <cstdint>
#include <map>
#include <string>

#include <Poco/ClassLibrary.h>

namespace antidrift {
inline namespace abi_v0 {

class __attribute__((visibility("default"))) Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
};

}  // namespace abi_v0
}  // namespace antidrift

namespace {

class StaleBackend : public antidrift::Backend {
 public:
  std::string name() const override { return "stale_manifest"; }
};

}  // namespace

extern "C" POCO_LIBRARY_API int antidriftBackendAbiVersion() {
  return 2;  // the current ANTIDRIFT_BACKEND_ABI_VERSION (keep in step)
}
extern "C" POCO_LIBRARY_API const char* antidriftBackendClass() {
  return "StaleBackend";
}
POCO_BEGIN_MANIFEST(antidrift::Backend)
POCO_EXPORT_CLASS(StaleBackend)
POCO_END_MANIFEST

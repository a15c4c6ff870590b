/// @file wrong_abi.cpp
/// Test plugin: a well-formed backend that reports an ABI version one above the
/// daemon's. The loader must refuse it before creating anything.
#include <cstdint>
#include <map>
#include <string>

#include "antidrift/backend.h"

namespace {

class WrongAbiBackend : public antidrift::Backend {
 public:
  std::string name() const override { return "wrong_abi"; }
  void configure(const std::map<std::string, std::string>&) override {}
  std::string complete(const std::string&, std::int64_t) override { return "wrong abi"; }
};

}  // namespace

extern "C" POCO_LIBRARY_API int antidriftBackendAbiVersion() {
  return ANTIDRIFT_BACKEND_ABI_VERSION + 1;
}
extern "C" POCO_LIBRARY_API const char* antidriftBackendClass() {
  return "WrongAbiBackend";
}
POCO_BEGIN_MANIFEST(antidrift::Backend)
POCO_EXPORT_CLASS(WrongAbiBackend)
POCO_END_MANIFEST

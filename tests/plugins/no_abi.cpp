/// @file no_abi.cpp
/// Test plugin: a Poco manifest with a Backend but no antidriftBackendAbiVersion
/// entry point. The loader must call it "not an AntiDrift plugin".
#include <cstdint>
#include <map>
#include <string>

#include "antidrift/backend.h"

namespace {

class NoAbiBackend : public antidrift::Backend {
 public:
  std::string name() const override { return "no_abi"; }
  void configure(const std::map<std::string, std::string>&) override {}
  std::string complete(const std::string&, std::int64_t) override { return "no abi"; }
};

}  // namespace

POCO_BEGIN_MANIFEST(antidrift::Backend)
POCO_EXPORT_CLASS(NoAbiBackend)
POCO_END_MANIFEST

/// @file configure_throws.cpp
/// Test plugin: loads fine, but configure() always throws BackendError. The
/// loader must report the message and hand out no backend.
#include <cstdint>
#include <map>
#include <string>

#include "antidrift/backend.h"

namespace {

class ConfigureThrowsBackend : public antidrift::Backend {
 public:
  std::string name() const override { return "configure_throws"; }
  void configure(const std::map<std::string, std::string>&) override {
    throw antidrift::BackendError("configure_throws: refusing every configuration");
  }
  std::string complete(const std::string&, std::int64_t) override { return "unreachable"; }
};

}  // namespace

ANTIDRIFT_DECLARE_BACKEND(ConfigureThrowsBackend)

/// @file mock_backend.h
/// A GoogleMock Backend (docs/DESIGN.md §8 ABI) for role and controller tests.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include <gmock/gmock.h>

#include "antidrift/backend.h"

namespace antidrift::test {

/// Mocks name(), configure() and complete() of antidrift::Backend; answer()
/// and destination() keep the ABI's defaults (answer() calls complete() and
/// estimates the usage), so role tests written against complete() exercise
/// the roles' ABI 2 path. Use StrictMock<MockBackend> when the backend is the
/// collaborator under test, NiceMock otherwise.
class MockBackend : public Backend {
 public:
  MOCK_METHOD(std::string, name, (), (const, override));
  MOCK_METHOD(void, configure, ((const std::map<std::string, std::string>& settings)), (override));
  MOCK_METHOD(std::string, complete, (const std::string& prompt, std::int64_t timeoutMs),
              (override));
};

}  // namespace antidrift::test

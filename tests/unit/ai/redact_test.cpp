// Tests for privacy.redact (core/include/antidrift/ai/redact.h; docs/DESIGN.md §8;
// issue 6 item 5), with the defaults of core/include/antidrift/settings.h.
#include "antidrift/ai/redact.h"

#include <map>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "antidrift/settings.h"

namespace antidrift::ai {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

using Patterns = std::map<std::string, std::string>;

Redactor defaults() {
  return Redactor(Settings{}.redactPatterns);
}

TEST(Redactor, DefaultsMaskEmailAddresses) {
  EXPECT_EQ(defaults().apply("Inbox (3) - jane.doe+work@example.co.uk - Thunderbird"),
            "Inbox (3) - [redacted] - Thunderbird");
  EXPECT_EQ(defaults().apply("Re: a@b.io, C_D%x@mail.example.org"), "Re: [redacted], [redacted]");
}

TEST(Redactor, DefaultsMaskDigitRunsOfSixOrMore) {
  EXPECT_EQ(defaults().apply("Order 1234567 — Shop"), "Order [redacted] — Shop");
  EXPECT_EQ(defaults().apply("IBAN DE89370400440532013000"), "IBAN DE[redacted]");
  EXPECT_EQ(defaults().apply("ticket 12345 of 2024"), "ticket 12345 of 2024");  // five digits stay
  EXPECT_EQ(defaults().apply("123456"), "[redacted]");
}

TEST(Redactor, DefaultsLeaveOrdinaryTitlesUntouched) {
  for (const std::string title :
       {"main.cpp - antidrift - Visual Studio Code", "Cat videos - YouTube — Mozilla Firefox",
        "● README.md — Kate", "Ünïcödé 日本語 – Document 1", "(12) Inbox - 10:42 - 75%", ""}) {
    EXPECT_EQ(defaults().apply(title), title);
  }
}

TEST(Redactor, OverlappingMatchesOfTwoPatternsBecomeOneMask) {
  // The digits rule and the e-mail rule both match inside this address.
  EXPECT_EQ(defaults().apply("mail 12345678@example.com now"), "mail [redacted] now");
}

TEST(Redactor, EmptyPatternsAreSkipped) {
  const Redactor none(Patterns{{"email", ""}, {"digits", ""}});
  EXPECT_EQ(none.size(), 0u);
  EXPECT_EQ(none.apply("jane@example.com 1234567"), "jane@example.com 1234567");
  const Redactor onlyEmail(
      Patterns{{"email", Settings{}.redactPatterns.at("email")}, {"digits", ""}});
  EXPECT_EQ(onlyEmail.size(), 1u);
  EXPECT_EQ(onlyEmail.apply("jane@example.com 1234567"), "[redacted] 1234567");
}

TEST(Redactor, APatternThatCanMatchNothingDoesNotLoop) {
  const Redactor redactor(Patterns{{"xs", "x*"}});
  EXPECT_EQ(redactor.apply("abxxc x"), "ab[redacted]c [redacted]");
}

TEST(Redactor, PatternsAreUtf8) {
  // "." is one character (é, two bytes), not one byte.
  const Redactor redactor(Patterns{{"name", "Jos. Ñ"}});
  EXPECT_EQ(redactor.apply("Call with José Ñ today"), "Call with [redacted] today");
}

TEST(Redactor, DollarSignsInTextAreKeptLiterally) {
  const Redactor redactor(Patterns{{"secret", "s3cr3t"}});
  EXPECT_EQ(redactor.apply("$0 $1 s3cr3t \\1"), "$0 $1 [redacted] \\1");
}

TEST(Redactor, InvalidUtf8InTheTextIsNoCrash) {
  EXPECT_EQ(defaults().apply("bad \xC3 byte 1234567"), "bad \xEF\xBF\xBD byte [redacted]");
}

TEST(Redactor, APatternThatDoesNotCompileNamesItsKey) {
  try {
    const Redactor redactor(Patterns{{"email", "[a-z"}, {"ok", "a"}});
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& error) {
    EXPECT_THAT(error.what(), StartsWith("privacy.redact.email: "));
    EXPECT_THAT(error.what(), HasSubstr("missing terminating ]"));
  }
}

TEST(Redactor, APatternThatExhaustsPcreFailsClosed) {
  // Catastrophic backtracking: PCRE gives up at its match limit.
  const Redactor redactor(Patterns{{"slow", "(a+)+$"}});
  EXPECT_EQ(redactor.apply(std::string(64, 'a') + "!"), "[redacted]");
}

TEST(Redactor, IsSafeToShareBetweenThreads) {
  const Redactor redactor = defaults();
  std::vector<std::thread> threads;
  std::vector<std::string> results(8);
  for (std::size_t i = 0; i < results.size(); ++i) {
    threads.emplace_back([&, i] {
      for (int n = 0; n < 200; ++n) results[i] = redactor.apply("id 9876543 for x@y.org");
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (const std::string& result : results) EXPECT_EQ(result, "id [redacted] for [redacted]");
}

}  // namespace
}  // namespace antidrift::ai

#include "antidrift/evidence/observation.h"

#include <gtest/gtest.h>

namespace antidrift {
namespace {

const std::string kReplacement = "\xEF\xBF\xBD";

TEST(SanitizeTitle, KeepsValidUtf8Untouched) {
  EXPECT_EQ(sanitizeTitle("Año 2020 — 中文 😀"), "Año 2020 — 中文 😀");
}

TEST(SanitizeTitle, ReplacesEachInvalidSequenceWithoutLosingTheNextCharacter) {
  EXPECT_EQ(sanitizeTitle("a\xff"
                          "b"),
            "a" + kReplacement + "b");
  EXPECT_EQ(sanitizeTitle("\xE2"
                          "A"),
            kReplacement + "A");                                      // truncated 3-byte sequence
  EXPECT_EQ(sanitizeTitle("\xC0\xAF"), kReplacement + kReplacement);  // overlong '/'
  EXPECT_EQ(sanitizeTitle("\xED\xA0\x80"), kReplacement);             // UTF-16 surrogate
  EXPECT_EQ(sanitizeTitle("\xF4\x90\x80\x80"), kReplacement);         // beyond U+10FFFF
  EXPECT_EQ(sanitizeTitle("end\xF0\x9F"), "end" + kReplacement);      // cut at the end
}

TEST(SanitizeTitle, DropsControlCharacters) {
  EXPECT_EQ(sanitizeTitle("a\tb\nc\rd\x1b[31me\x7f"), "abcd[31me");
  EXPECT_EQ(sanitizeTitle("x\xC2\x85y"), "xy");  // C1 NEL
  EXPECT_EQ(sanitizeTitle(std::string("nul\0byte", 8)), "nulbyte");
}

TEST(SanitizeTitle, CutsAt512BytesOnACharacterBoundary) {
  EXPECT_EQ(sanitizeTitle(std::string(600, 'x')).size(), kMaxTitleBytes);
  std::string wide = std::string(511, 'x') + "é";  // é would end at byte 513
  EXPECT_EQ(sanitizeTitle(wide), std::string(511, 'x'));
  std::string cjk;
  for (int i = 0; i < 200; ++i) cjk += "中";  // 3 bytes each
  const std::string cut = sanitizeTitle(cjk);
  EXPECT_EQ(cut.size(), 510u);
  EXPECT_EQ(sanitizeTitle(cut), cut);  // still valid UTF-8
}

TEST(NormaliseApp, LowerCasesTrimsAndNamesTheEmptyClassUnknown) {
  EXPECT_EQ(normaliseApp("  Firefox Developer Edition "), "firefox developer edition");
  EXPECT_EQ(normaliseApp(""), "unknown");
  EXPECT_EQ(normaliseApp(" \t "), "unknown");
  EXPECT_EQ(normaliseApp("ÉDITEUR"), "éditeur");
}

TEST(NormaliseApp, MatchesThePlainFormDespiteInvisibleCharactersAndDecomposedAccents) {
  EXPECT_EQ(normaliseApp("Code\u200B"), "code");
  EXPECT_EQ(normaliseApp("\uFEFFCode\u200E"), "code");
  EXPECT_EQ(normaliseApp("cod\u0065\u0301"), normaliseApp("cod\u00E9"));
  EXPECT_EQ(normaliseApp("cod\u0065\u0301"), "cod\u00E9");
  EXPECT_EQ(normaliseApp("CODE\u00A0-\u2003Insiders"), "code - insiders");
}

TEST(NormaliseApp, CaseFoldsBeyondAscii) {
  EXPECT_EQ(normaliseApp("KATE\u0130"), normaliseApp("katei\u0307"));  // İ folds to i + dot
  EXPECT_EQ(normaliseApp("STRASSE"), normaliseApp("Stra\u00DFe"));
}

TEST(NormaliseApp, AnAppOfOnlyInvisibleCharactersIsUnknown) {
  EXPECT_EQ(normaliseApp("\u200B\u200D"), "unknown");
  EXPECT_EQ(normaliseApp("\u00A0\u3000"), "unknown");
  EXPECT_EQ(normaliseApp("\x01\x02"), "unknown");
}

TEST(NormaliseApp, IsIdempotentAndKeepsInvalidBytesVisible) {
  EXPECT_EQ(normaliseApp("a\xff"), "a" + kReplacement);
  for (const char* raw : {"Firefox Developer Edition", "Co\u200Bde", "\xff\xfe", "  "}) {
    EXPECT_EQ(normaliseApp(normaliseApp(raw)), normaliseApp(raw)) << raw;
  }
}

}  // namespace
}  // namespace antidrift

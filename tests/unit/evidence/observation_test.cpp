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

TEST(NormalizeApp, LowerCasesTrimsAndNamesTheEmptyClassUnknown) {
  EXPECT_EQ(normalizeApp("  Firefox Developer Edition "), "firefox developer edition");
  EXPECT_EQ(normalizeApp(""), "unknown");
  EXPECT_EQ(normalizeApp(" \t "), "unknown");
  EXPECT_EQ(normalizeApp("ÉDITEUR"), "éditeur");
}

TEST(NormalizeApp, MatchesThePlainFormDespiteInvisibleCharactersAndDecomposedAccents) {
  EXPECT_EQ(normalizeApp("Code\u200B"), "code");
  EXPECT_EQ(normalizeApp("\uFEFFCode\u200E"), "code");
  EXPECT_EQ(normalizeApp("cod\u0065\u0301"), normalizeApp("cod\u00E9"));
  EXPECT_EQ(normalizeApp("cod\u0065\u0301"), "cod\u00E9");
  EXPECT_EQ(normalizeApp("CODE\u00A0-\u2003Insiders"), "code - insiders");
}

TEST(NormalizeApp, CaseFoldsBeyondAscii) {
  EXPECT_EQ(normalizeApp("KATE\u0130"), normalizeApp("katei\u0307"));  // İ folds to i + dot
  EXPECT_EQ(normalizeApp("STRASSE"), normalizeApp("Stra\u00DFe"));
}

TEST(NormalizeApp, AnAppOfOnlyInvisibleCharactersIsUnknown) {
  EXPECT_EQ(normalizeApp("\u200B\u200D"), "unknown");
  EXPECT_EQ(normalizeApp("\u00A0\u3000"), "unknown");
  EXPECT_EQ(normalizeApp("\x01\x02"), "unknown");
}

TEST(NormalizeApp, IsIdempotentAndKeepsInvalidBytesVisible) {
  EXPECT_EQ(normalizeApp("a\xff"), "a" + kReplacement);
  for (const char* raw : {"Firefox Developer Edition", "Co\u200Bde", "\xff\xfe", "  "}) {
    EXPECT_EQ(normalizeApp(normalizeApp(raw)), normalizeApp(raw)) << raw;
  }
}

}  // namespace
}  // namespace antidrift

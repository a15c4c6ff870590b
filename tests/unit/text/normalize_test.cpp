#include "antidrift/text/normalize.h"

#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace antidrift::text {
namespace {

const std::string kReplacement = "\xEF\xBF\xBD";
const std::string kEAcuteComposed = "\xC3\xA9";     // U+00E9
const std::string kEAcuteDecomposed = "e\xCC\x81";  // e + U+0301

TEST(NormalizeUnicode, KeepsPlainTextUntouched) {
  EXPECT_EQ(normalizeUnicode("index.js - chango.dev"), "index.js - chango.dev");
  EXPECT_EQ(normalizeUnicode("Año 2020 — 中文 😀"), "Año 2020 — 中文 😀");
  EXPECT_EQ(normalizeUnicode(""), "");
}

TEST(NormalizeUnicode, ComposesToNfc) {
  EXPECT_EQ(normalizeUnicode("caf" + kEAcuteDecomposed), "caf" + kEAcuteComposed);
  EXPECT_EQ(normalizeUnicode("caf" + kEAcuteComposed), "caf" + kEAcuteComposed);
  EXPECT_EQ(normalizeUnicode("\xE1\x84\x80\xE1\x85\xA1"), "\xEA\xB0\x80");  // Hangul jamo → 가
  EXPECT_EQ(normalizeUnicode("\xE2\x84\xAB"), "\xC3\x85");  // Ångström sign → Å (canonical)
  EXPECT_EQ(normalizeUnicode("\xEF\xAC\x81"), "\xEF\xAC\x81");  // ﬁ ligature: NFC keeps it
}

TEST(NormalizeUnicode, RemovesZeroWidthCharacters) {
  EXPECT_EQ(normalizeUnicode("Co\xE2\x80\x8B"
                             "de"),
            "Code");  // U+200B
  EXPECT_EQ(normalizeUnicode("a\xE2\x80\x8C"
                             "b\xE2\x80\x8D"
                             "c"),
            "abc");  // U+200C, U+200D
  EXPECT_EQ(normalizeUnicode("a\xE2\x81\xA0"
                             "b"),
            "ab");                                                  // U+2060
  EXPECT_EQ(normalizeUnicode("\xEF\xBB\xBFtitle"), "title");        // U+FEFF
  EXPECT_EQ(normalizeUnicode("soft\xC2\xADhyphen"), "softhyphen");  // U+00AD
}

TEST(NormalizeUnicode, RemovesBidiMarksAndControls) {
  EXPECT_EQ(normalizeUnicode("\xE2\x80\x8E"
                             "a\xE2\x80\x8F"
                             "b"),
            "ab");  // LRM, RLM
  EXPECT_EQ(normalizeUnicode("a\xD8\x9C"
                             "b"),
            "ab");  // U+061C
  for (const char* control :
       {"\xE2\x80\xAA", "\xE2\x80\xAB", "\xE2\x80\xAC", "\xE2\x80\xAD", "\xE2\x80\xAE",
        "\xE2\x81\xA6", "\xE2\x81\xA7", "\xE2\x81\xA8", "\xE2\x81\xA9"}) {
    EXPECT_EQ(normalizeUnicode(std::string("x") + control + "y"), "xy") << control;
  }
}

TEST(NormalizeUnicode, ComposesAcrossARemovedInvisibleCharacter) {
  EXPECT_EQ(normalizeUnicode("caf" + std::string("e\xE2\x80\x8B\xCC\x81")),
            "caf" + kEAcuteComposed);
}

TEST(NormalizeUnicode, FoldsEveryRunOfWhiteSpaceToOneSpaceAndTrims) {
  EXPECT_EQ(normalizeUnicode("  a \t\n b  "), "a b");
  EXPECT_EQ(normalizeUnicode("a\xC2\xA0"
                             "b"),
            "a b");  // no-break space
  EXPECT_EQ(normalizeUnicode("a\xE3\x80\x80\xE2\x80\x83"
                             "b"),
            "a b");  // ideographic space, em space
  EXPECT_EQ(normalizeUnicode("a\xE2\x80\xA8\xE2\x80\xA9"
                             "b"),
            "a b");  // line and paragraph separators
  EXPECT_EQ(normalizeUnicode("a\xC2\x85"
                             "b"),
            "a b");  // NEL
  EXPECT_EQ(normalizeUnicode(" \t\xC2\xA0 "), "");
  EXPECT_EQ(normalizeUnicode("a \xE2\x80\x8B b"), "a b");  // space, ZWSP, space: one run
}

TEST(NormalizeUnicode, ReplacesInvalidUtf8) {
  EXPECT_EQ(normalizeUnicode("a\xff"
                             "b"),
            "a" + kReplacement + "b");
  EXPECT_EQ(normalizeUnicode("\xE2"
                             "A"),
            kReplacement + "A");
  EXPECT_EQ(normalizeUnicode("\xED\xA0\x80"), kReplacement);
}

TEST(NormalizeUnicode, KeepsOtherCharactersIncludingNul) {
  EXPECT_EQ(normalizeUnicode(std::string("a\0b", 3)), std::string("a\0b", 3));
  EXPECT_EQ(normalizeUnicode("\xF0\x9F\x91\x8D\xF0\x9F\x8F\xBD"),
            "\xF0\x9F\x91\x8D\xF0\x9F\x8F\xBD");  // 👍🏽 with a skin-tone modifier
}

TEST(NormalizeUnicode, IsIdempotent) {
  for (const std::string text : {"  Ca\xE2\x80\x8B"
                                 "fe\xCC\x81 \t x ",
                                 "\xff\xfe", "中文  😀"}) {
    const std::string once = normalizeUnicode(text);
    EXPECT_EQ(normalizeUnicode(once), once);
  }
}

TEST(FoldCase, LowerCasesAndCaseFolds) {
  EXPECT_EQ(foldCase("Firefox Developer Edition"), "firefox developer edition");
  EXPECT_EQ(foldCase("\xC3\x89"
                     "COLE"),
            "\xC3\xA9"
            "cole");  // ÉCOLE
  EXPECT_EQ(foldCase("Stra\xC3\x9F"
                     "e"),
            "strasse");                                                         // ß folds to ss
  EXPECT_EQ(foldCase("\xCE\xA3\xCE\x99\xCE\xA3"), "\xCF\x83\xCE\xB9\xCF\x83");  // ΣΙΣ → σισ
}

TEST(FoldCase, NormalizesFirstAndReturnsNfc) {
  EXPECT_EQ(foldCase("  CAF"
                     "E\xCC\x81\xE2\x80\x8B  "),
            "caf" + kEAcuteComposed);
  EXPECT_EQ(foldCase("Caf" + kEAcuteDecomposed), foldCase("CAF\xC3\x89"));
  EXPECT_EQ(foldCase("\xE2\x84\xAB"), "\xC3\xA5");  // Ångström sign → å
}

TEST(FoldCase, IsIdempotent) {
  for (const std::string text : {"ÉCOLE  Straße", "\xE2\x84\xAB", "x\xff"}) {
    const std::string once = foldCase(text);
    EXPECT_EQ(foldCase(once), once);
  }
}

TEST(NormalizeUnicode, IsSafeFromManyThreadsAtOnce) {
  const std::string expected = "caf" + kEAcuteComposed + " x";
  std::vector<std::thread> threads;
  std::vector<int> mismatches(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 2000; ++i) {
        if (foldCase("CAF" + kEAcuteDecomposed + "\t X") != expected) ++mismatches[t];
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (int count : mismatches) EXPECT_EQ(count, 0);
}

TEST(AsciiFastPath, GivesWhatUtf8procGives) {
  // Issue 8 item 2: pure-ASCII text skips utf8proc. The same text with a
  // non-ASCII letter after it takes utf8proc's path; both must agree on
  // every ASCII character (inside the text: white space at either end is
  // trimmed, so there the two forms differ by design).
  const std::string tail = "\xC3\xA9";  // é
  for (int c = 1; c < 0x80; ++c) {
    const std::string ch(1, static_cast<char>(c));
    for (const std::string& text : {"Ab" + ch + "Cd", "  Q" + ch + ch + "z"}) {
      EXPECT_EQ(normalizeUnicode(text + tail), normalizeUnicode(text) + tail) << "character " << c;
      EXPECT_EQ(foldCase(text + tail), foldCase(text) + tail) << "character " << c;
    }
  }
  EXPECT_EQ(foldCase(" \tHello,\r\n  World! "), "hello, world!");
  EXPECT_EQ(normalizeUnicode(" \tHello,\r\n  World! "), "Hello, World!");
}

}  // namespace
}  // namespace antidrift::text

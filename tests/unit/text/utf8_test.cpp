// The one UTF-8 module (core/include/antidrift/text/utf8.h, issue 15 item 4).
#include "antidrift/text/utf8.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace antidrift::text {
namespace {

const std::string kReplacement = "\xEF\xBF\xBD";  // U+FFFD
const std::string kEAcute = "\xC3\xA9";           // U+00E9, 2 bytes
const std::string kEuro = "\xE2\x82\xAC";         // U+20AC, 3 bytes
const std::string kGrin = "\xF0\x9F\x98\x80";     // U+1F600, 4 bytes

// Every invalid sequence of the file comment, each with the one U+FFFD it becomes.
struct Invalid {
  const char* name;
  std::string bytes;
};
const std::vector<Invalid> kInvalid = {
    {"stray continuation", "\x80"},
    {"invalid lead C0", "\xC0\xAF"},
    {"invalid lead C1", "\xC1\xBF"},
    {"invalid lead F5", "\xF5\x80\x80\x80"},
    {"lead FF", "\xFF"},
    {"overlong 3-byte", "\xE0\x80\xAF"},
    {"surrogate", "\xED\xA0\x80"},
    {"past U+10FFFF", "\xF4\x90\x80\x80"},
    {"truncated 3-byte", "\xE2\x82"},
    {"truncated 4-byte", "\xF0\x9F\x98"},
};

TEST(Utf8Decode, DecodesEachLengthAndAdvancesPastIt) {
  const std::string text = "a" + kEAcute + kEuro + kGrin;
  std::size_t pos = 0;
  EXPECT_EQ(decodeOne(text, pos), U'a');
  EXPECT_EQ(pos, 1u);
  EXPECT_EQ(decodeOne(text, pos), U'\u00E9');
  EXPECT_EQ(pos, 3u);
  EXPECT_EQ(decodeOne(text, pos), U'\u20AC');
  EXPECT_EQ(pos, 6u);
  EXPECT_EQ(decodeOne(text, pos), U'\U0001F600');
  EXPECT_EQ(pos, 10u);
}

TEST(Utf8Decode, ATruncatedSequenceNeverSwallowsTheNextByte) {
  const std::string text =
      "\xE2\x82"
      "A";
  std::size_t pos = 0;
  EXPECT_EQ(decodeOne(text, pos), kReplacementCharacter);
  EXPECT_EQ(decodeOne(text, pos), U'A');
  EXPECT_EQ(pos, text.size());
}

TEST(Utf8Encode, RoundTripsWhatItDecodes) {
  for (const char32_t codePoint : {U'a', U'\u00E9', U'\u20AC', U'\U0001F600', U'\U0010FFFF'}) {
    std::string encoded;
    appendUtf8(encoded, codePoint);
    std::size_t pos = 0;
    EXPECT_EQ(decodeOne(encoded, pos), codePoint);
    EXPECT_EQ(pos, encoded.size());
  }
}

TEST(Utf8Validate, RejectsEveryInvalidSequenceAndAcceptsValidText) {
  EXPECT_TRUE(isValidUtf8(""));
  EXPECT_TRUE(isValidUtf8("plain " + kEAcute + kEuro + kGrin));
  EXPECT_TRUE(isValidUtf8(kReplacement));  // a real U+FFFD is valid
  for (const Invalid& invalid : kInvalid) {
    EXPECT_FALSE(isValidUtf8("ok" + invalid.bytes + "ok")) << invalid.name;
  }
}

TEST(Utf8Validate, ToValidReplacesEachInvalidSequenceWithOneReplacement) {
  EXPECT_EQ(toValidUtf8("a" + kEuro + "\tb"), "a" + kEuro + "\tb");  // valid: unchanged
  EXPECT_EQ(toValidUtf8("\xE2\x82"
                        "A"),
            kReplacement + "A");
  EXPECT_EQ(toValidUtf8("\xED\xA0\x80"), kReplacement);
  EXPECT_EQ(toValidUtf8("\x80\x80"), kReplacement + kReplacement);
  for (const Invalid& invalid : kInvalid) {
    EXPECT_TRUE(isValidUtf8(toValidUtf8(invalid.bytes))) << invalid.name;
  }
}

TEST(Utf8Count, CountsCodePointsNotBytes) {
  EXPECT_EQ(countCodePoints(""), 0u);
  EXPECT_EQ(countCodePoints("abc"), 3u);
  EXPECT_EQ(countCodePoints(kEAcute + kEuro + kGrin), 3u);
  EXPECT_EQ(countCodePoints("\x80\x80"), 0u);  // invalid: continuation bytes are not counted
}

TEST(Utf8Cut, ACutNeverSplitsACodePoint) {
  const std::string text = "a" + kEAcute + kEuro + kGrin + "z";  // 1+2+3+4+1 bytes
  for (std::size_t maxBytes = 0; maxBytes <= text.size() + 1; ++maxBytes) {
    const std::string cut = cutBytes(text, maxBytes);
    EXPECT_LE(cut.size(), maxBytes);
    EXPECT_TRUE(isValidUtf8(cut)) << maxBytes;
    EXPECT_EQ(text.compare(0, cut.size(), cut), 0) << maxBytes;  // a prefix
  }
  EXPECT_EQ(cutBytes(text, 5), "a" + kEAcute);  // 6 would end inside the euro sign
  EXPECT_EQ(cutBytes(text, 6), "a" + kEAcute + kEuro);
  EXPECT_EQ(cutBytes(text, 100), text);
  EXPECT_EQ(boundaryBefore(text, 9), 6u);
}

TEST(Utf8Cut, CutCodePointsAppendsTheEllipsisOnlyWhenItCut) {
  const std::string text = kGrin + kGrin + kGrin;
  EXPECT_EQ(cutCodePoints(text, 2), kGrin + kGrin);
  EXPECT_EQ(cutCodePoints(text, 2, "…"), kGrin + kGrin + "…");
  EXPECT_EQ(cutCodePoints(text, 3, "…"), text);
  EXPECT_EQ(cutCodePoints(text, 0, "…"), "…");
  EXPECT_EQ(cutCodePoints("", 0, "…"), "");
}

TEST(Utf8Sanitize, ReplacesInvalidSequencesAndDropsControlCharacters) {
  EXPECT_EQ(sanitizeUtf8("a\x01"
                         "b\x7F"
                         "c\xC2\x85"
                         "d\x1B[31m"),
            "abcd[31m");
  EXPECT_EQ(sanitizeUtf8("\xE2\x82"
                         "A\xFF"),
            kReplacement + "A" + kReplacement);
  for (const Invalid& invalid : kInvalid) {
    EXPECT_TRUE(isValidUtf8(sanitizeUtf8(invalid.bytes))) << invalid.name;
  }
}

TEST(Utf8Sanitize, LineBreaksAreRemovedKeptOrTurnedIntoSpaces) {
  const std::string raw = "a\r\nb\rc\nd\te";
  EXPECT_EQ(sanitizeUtf8(raw, LineBreaks::Remove), "abcde");
  EXPECT_EQ(sanitizeUtf8(raw, LineBreaks::Keep), "a\nb\nc\nd\te");
  EXPECT_EQ(sanitizeUtf8(raw, LineBreaks::ToSpace), "a  b c d e");
}

TEST(Utf8Sanitize, TheByteCapCutsOnACodePointBoundary) {
  const std::string raw = kEuro + kEuro + kEuro;  // 9 bytes
  EXPECT_EQ(sanitizeUtf8(raw, LineBreaks::Remove, 8), kEuro + kEuro);
  EXPECT_EQ(sanitizeUtf8(raw, LineBreaks::Remove, 9), raw);
  EXPECT_EQ(sanitizeUtf8(raw, LineBreaks::Remove, 2), "");
  // The cap counts the output: an invalid byte becomes three.
  EXPECT_EQ(sanitizeUtf8("\xFF\xFF", LineBreaks::Remove, 4), kReplacement);
  for (std::size_t cap = 0; cap < 12; ++cap) {
    const std::string out =
        sanitizeUtf8("x" + kGrin + "\xE2\x82" + kEAcute, LineBreaks::Remove, cap);
    EXPECT_LE(out.size(), cap);
    EXPECT_TRUE(isValidUtf8(out)) << cap;
  }
}

TEST(Utf8ShortMessage, OneTrimmedLineCutWithAnEllipsis) {
  EXPECT_EQ(oneLine("  first\nsecond\t \x01 "), "first second");
  EXPECT_EQ(shortMessage("  broken\npipe  ", 100), "broken pipe");
  EXPECT_EQ(shortMessage("abcdef", 3), "abc…");
  EXPECT_EQ(shortMessage(kGrin + kGrin, 1), kGrin + "…");
  EXPECT_EQ(shortMessage("\xE2\x82", 5), kReplacement);
}

}  // namespace
}  // namespace antidrift::text

#include "antidrift/drift/title_normalizer.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include <Poco/Exception.h>
#include <Poco/RegularExpression.h>

#include "antidrift/text/normalize.h"

namespace antidrift::drift {
namespace {

using Poco::RegularExpression;

// One step of the normalisation: every match of `regex` becomes `replacement`.
struct Step {
  std::unique_ptr<RegularExpression> regex;
  std::string replacement;
};

// The steps run on foldCase()d text (lower case, NFC, single ASCII spaces)
// without PCRE's UTF-8 mode: every multi-byte character is an alternative of
// literal bytes, and ASCII bytes never occur inside a UTF-8 sequence. In
// order: the browser suffix first (so a counter before it becomes a prefix),
// then markers, counters, clocks, percentages; separators last.
std::vector<Step> compileSteps() {
  const std::string dash = "(?:-|\xE2\x80\x93|\xE2\x80\x94)";  // -, en dash, em dash
  const std::string separator =
      "(?:-|\xE2\x80\x93|\xE2\x80\x94|\\||\xC2\xB7|\xE2\x80\xA2|:)";  // and | · • :
  const std::pair<std::string, std::string> steps[] = {
      // The browser's own suffix, with its private-browsing variants.
      {"\\s*" + dash +
           "\\s*(?:mozilla firefox|firefox developer edition|firefox nightly|firefox|"
           "google chrome|chromium|brave|microsoft edge|vivaldi|opera|tor browser|librewolf)"
           "(?:\\s*\\(?(?:private browsing|incognito|inprivate)\\)?)?\\s*$",
       ""},
      // Unsaved-file markers: "● " or "*" in front, "*" at the end (a run of
      // them at once, so a title of markers takes one pass, not one each).
      {"^(?:(?:\xE2\x97\x8F|\\*)\\s*)+", ""},
      {"(?:\\s*\\*)+$", ""},
      // Progress counters in brackets: "[3/10]", "(3 of 10)".
      {"[\\(\\[]\\s*\\d+\\s*(?:/|of)\\s*\\d+\\s*[\\)\\]]", " "},
      // Unread counters: "(3)", "[3]", "(99+)".
      {"[\\(\\[]\\d+\\+?[\\)\\]]", " "},
      // Clock times: "9:05", "12:34:56", "9:05 pm", "9:05 p.m.".
      {"(?<![\\w:.,])(?:[01]?\\d|2[0-3]):[0-5]\\d(?::[0-5]\\d)?(?:\\s*[ap]\\.?m\\b\\.?)?"
       "(?![\\w:])",
       " "},
      // Percentages: "45%", "45.5 %", "7,5%".
      {"(?<![\\w.,])\\d+(?:[.,]\\d+)?\\s*%", " "},
      // Bare progress counters "3/10", "3 / 10", but no part of a date.
      {"(?<![\\w/.,])\\d+\\s*/\\s*\\d+(?![\\w/.,])", " "},
      // Brackets emptied by the removals above.
      {"\\(\\s*\\)|\\[\\s*\\]", " "},
      // Runs of white space left by the removals.
      {"\\s{2,}", " "},
      // A separator doubled by a removal ("a - 12:34 - b"): keep the first.
      {"(\\s*" + separator + ")(?:\\s*" + separator + ")+(?=\\s|$)", "$1"},
      // Separators dangling at either end.
      {"^(?:\\s|" + separator + ")+", ""},
      {"(?:\\s|" + separator + ")+$", ""},
  };
  std::vector<Step> compiled;
  for (const auto& [regex, replacement] : steps) {
    compiled.push_back(Step{std::make_unique<RegularExpression>(regex), replacement});
  }
  return compiled;
}

const std::vector<Step>& steps() {
  static const std::vector<Step> compiled = compileSteps();  // thread-safe initialisation
  return compiled;
}

/// One pass of every removal over a case-folded key, then NFC again.
std::string applySteps(std::string key) {
  for (const Step& step : steps()) {
    try {
      step.regex->subst(key, step.replacement, RegularExpression::RE_GLOBAL);
    } catch (const Poco::RegularExpressionException&) {
      // PCRE's match limit on a pathological title: leave this step out.
    }
  }
  return text::foldCase(key);  // NFC again after the removals; trims
}

/// The uncached normalisation (normalizeTitle's contract).
std::string normalizeUncached(std::string_view title) {
  // Passes run until nothing changes, so what one pass uncovers goes too
  // ("x - Firefox - Mozilla Firefox", "notes.txt * (3)") and the result is
  // idempotent, as the header promises (broken twice; found by
  // tests/fuzz/text_fuzz.cpp, inputs in tests/fuzz/regressions/text/). Every
  // removal shortens the key, so a pass that changes it shortens it and the
  // loop ends within key.size() passes; the bound only makes that explicit.
  std::string key = text::foldCase(title);
  for (std::size_t pass = 0, passes = key.size() + 1; pass < passes; ++pass) {
    std::string next = applySteps(key);
    if (next == key) break;
    key = std::move(next);
  }
  return key;
}

/// A small memo of recent titles (issue 8 item 2): one observation asks for
/// the same title's key up to three times (own page, verdict key, site key),
/// and heartbeats repeat it, while each normalisation runs a dozen regexes.
/// Direct-mapped, kMemoSlots entries of titles up to kMemoMaxBytes (a key is
/// about as long as its title), so it holds about 4096 × 1 KiB at most whatever
/// the daemon sees, and about 600 KiB for real titles; one mutex. 4096: a
/// day's distinct titles (the real export: about 1,500) fit with room, which
/// doubles the replay's speed against 256 slots (issue 8 item 1) and saves a
/// sixth of its instructions against 1,024 (issue 16 item 5, callgrind).
struct TitleMemo {
  static constexpr std::size_t kMemoSlots = 4096;
  static constexpr std::size_t kMemoMaxBytes = 512;
  struct Entry {
    bool used = false;
    std::string title;
    std::string key;
  };
  std::mutex mutex;
  std::array<Entry, kMemoSlots> entries;
};

TitleMemo& titleMemo() {
  static TitleMemo* memo = new TitleMemo;  // never destroyed: usable until exit
  return *memo;
}

}  // namespace

std::string normalizeTitle(std::string_view title) {
  if (title.size() > TitleMemo::kMemoMaxBytes) return normalizeUncached(title);
  TitleMemo& memo = titleMemo();
  TitleMemo::Entry& entry =
      memo.entries[std::hash<std::string_view>{}(title) % TitleMemo::kMemoSlots];
  {
    const std::lock_guard<std::mutex> lock(memo.mutex);
    if (entry.used && entry.title == title) return entry.key;
  }
  std::string key = normalizeUncached(title);
  const std::lock_guard<std::mutex> lock(memo.mutex);
  entry.used = true;
  entry.title.assign(title);
  entry.key = key;
  return key;
}

std::string siteOf(std::string_view key) {
  static const std::string_view separators[] = {" - ", " | ", " \xE2\x80\x93 ", " \xE2\x80\x94 ",
                                                " \xC2\xB7 "};  // -, |, –, —, ·
  // The site starts after the rightmost separator. Every separator ends in a
  // space, so one backward scan over the spaces finds it (five rfind calls
  // compared at every position: a fifth of the replay's time, issue 8 item 1).
  std::size_t start = 0;
  for (std::size_t last = key.size(); last-- > 0 && start == 0;) {
    if (key[last] != ' ') continue;
    for (const std::string_view separator : separators) {
      if (last + 1 >= separator.size() &&
          key.compare(last + 1 - separator.size(), separator.size(), separator) == 0) {
        start = last + 1;
        break;
      }
    }
  }
  const std::string_view site = key.substr(start);
  if (site.empty() || site.size() > 40 || std::count(site.begin(), site.end(), ' ') > 3) return {};
  return std::string(site);
}

std::string editorWorkspace(std::string_view title) {
  std::string key = normalizeTitle(title);
  // The editor's own name ends its title (its window.title default).
  static const std::array<std::string_view, 5> kEditors = {
      "visual studio code - insiders", "visual studio code", "vscodium", "code - oss", "cursor"};
  bool found = false;
  for (const std::string_view editor : kEditors) {
    if (key.size() > editor.size() + 3 &&
        key.compare(key.size() - editor.size(), editor.size(), editor) == 0) {
      key.resize(key.size() - editor.size());
      found = true;
      break;
    }
  }
  if (!found) return {};
  // The separator before it, then "<file> - <folder>": the last segment.
  static const std::array<std::string_view, 3> kSeparators = {" - ", " \xE2\x80\x93 ",
                                                              " \xE2\x80\x94 "};
  const auto endsWithSeparator = [&](const std::string& text) -> std::size_t {
    for (const std::string_view separator : kSeparators) {
      if (text.size() >= separator.size() &&
          text.compare(text.size() - separator.size(), separator.size(), separator) == 0) {
        return separator.size();
      }
    }
    return 0;
  };
  const std::size_t cut = endsWithSeparator(key);
  if (cut == 0) return {};
  key.resize(key.size() - cut);
  std::size_t best = std::string::npos;
  std::size_t width = 0;
  for (const std::string_view separator : kSeparators) {
    const std::size_t at = key.rfind(separator);
    if (at != std::string::npos && (best == std::string::npos || at > best)) {
      best = at;
      width = separator.size();
    }
  }
  if (best == std::string::npos || best == 0) return {};  // no file beside a folder
  return key.substr(best + width);
}

}  // namespace antidrift::drift

#include "antidrift/drift/relevance.h"

#include <algorithm>
#include <array>
#include <initializer_list>
#include <unordered_set>

#include <utf8proc.h>

#include "antidrift/drift/title_normalizer.h"
#include "antidrift/text/normalize.h"

namespace antidrift::drift {
namespace {

bool endsWith(const std::string& word, std::string_view suffix) {
  return word.size() >= suffix.size() &&
         word.compare(word.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/// A light plural stemmer: "libraries" → "library", "transitions" →
/// "transition"; "class", "status", "analysis" stay.
std::string stem(std::string word) {
  if (word.size() >= 5 && endsWith(word, "ies")) {
    word.replace(word.size() - 3, 3, "y");
  } else if (word.size() >= 4 && endsWith(word, "s") && !endsWith(word, "ss") &&
             !endsWith(word, "us") && !endsWith(word, "is")) {
    word.pop_back();
  }
  return word;
}

/// English stop words, and the words generic to any work, any app and any
/// web page: they say nothing about *which* work a window serves. A closed
/// list, not fitted to any day's titles (issue 16 item 3: build what generalises).
/// `words` as relevanceWords() gives them (stemmed), so "needs" and "need" are one.
std::unordered_set<std::string> stemmed(std::initializer_list<std::string_view> words) {
  std::unordered_set<std::string> result;
  for (const std::string_view word : words) result.insert(stem(std::string(word)));
  return result;
}

const std::unordered_set<std::string>& stopWords() {
  static const std::unordered_set<std::string> words = stemmed(
      {"the",     "and",    "for",   "with",   "from",    "into",  "onto",  "are",    "was",
       "were",    "been",   "being", "its",    "this",    "that",  "these", "those",  "our",
       "your",    "their",  "his",   "her",    "hers",    "you",   "they",  "them",   "then",
       "than",    "there",  "here",  "when",   "where",   "what",  "which", "who",    "whom",
       "how",     "why",    "all",   "any",    "each",    "every", "some",  "not",    "only",
       "own",     "same",   "too",   "very",   "can",     "could", "will",  "would",  "shall",
       "should",  "may",    "might", "must",   "just",    "now",   "about", "after",  "before",
       "between", "over",   "under", "out",    "off",     "again", "more",  "most",   "other",
       "such",    "both",   "few",   "does",   "did",     "doing", "done",  "has",    "have",
       "had",     "having", "get",   "got",    "getting", "via",   "per",   "within", "without",
       "until",   "while",  "also",  "one",    "two",     "three", "first", "second", "last",
       "next",    "new",    "old",   "way",    "like",    "need",  "needs", "want",   "know",
       "see",     "make",   "made",  "making", "let",     "lets",  "yes"});
  return words;
}

/// The words generic to any work, any app and any web page.
const std::unordered_set<std::string>& workWords() {
  static const std::unordered_set<std::string> words = stemmed(
      {// Verbs of any work.
       "add", "adding", "added", "use", "using", "used", "work", "working", "worked", "fix",
       "fixed", "fixing", "write", "writing", "written", "wrote", "read", "reading", "finish",
       "finished", "start", "started", "create", "creating", "created", "update", "updating",
       "updated", "implement", "implementing", "implemented", "implementation", "build", "building",
       "built", "change", "changing", "changed", "test", "testing", "tested", "check", "checking",
       "review", "reviewing", "clean", "cleaning", "move", "moving", "remove", "removing", "set",
       "setting", "setup", "try", "trying", "learn", "learning", "show", "showing", "run",
       "running", "open", "close", "send", "sending", "sent", "prepare", "draft", "complete",
       "completed", "done", "pass", "passing", "passes",
       // Nouns of any work, app or page.
       "task", "thing", "stuff", "page", "site", "website", "web", "app", "application", "blog",
       "post", "file", "code", "project", "feature", "issue", "bug", "version", "part", "list",
       "home", "main", "index", "doc", "docs", "documentation", "guide", "tutorial", "example",
       "help", "link", "plugin", "tool", "data", "dev", "com", "org", "net", "www", "http", "https",
       "html", "css", "json", "new", "untitled", "document", "folder", "window", "tab", "search",
       "result", "results", "question", "answer", "video", "watch", "official", "online", "free",
       "best", "top", "day", "today", "time", "minute", "hour", "week", "note", "notes", "draft",
       "item", "step", "end", "way", "use", "user", "system", "error", "problem", "support", "team",
       "work", "job", "section", "chapter", "content", "text", "image", "title",
       // Words of the apps themselves (an allowed app's name says nothing of the work).
       "visual", "studio", "insider", "editor", "terminal", "console", "shell", "browser",
       "firefox", "mozilla", "chrome", "google", "chromium", "edge", "microsoft", "safari", "brave",
       "opera", "vivaldi", "developer", "edition", "nightly", "konsole", "xterm", "qterminal",
       "gnome", "kde", "desktop", "office", "writer", "libreoffice"});
  return words;
}

/// The common English words (SCOWL size 35, Debian's wamerican-small, its
/// lower-case entries: kCommonWords, generated by core/CMakeLists.txt),
/// stemmed as relevanceWords() stems. A word of the commitment that is not
/// one — a name ("gatsby", "chango"), a rare or technical word ("markdown",
/// "thumbnail"), any word of another language — is specific.
#include "common_words.inc"

const std::unordered_set<std::string>& commonWords() {
  static const std::unordered_set<std::string> words = [] {
    std::unordered_set<std::string> result;
    result.reserve(kCommonWordCount);
    for (const char* word : kCommonWords) result.insert(stem(word));
    return result;
  }();
  return words;
}

/// True for a code point that is part of a word: a letter, a digit, or a
/// combining mark (any script).
bool isWordCodePoint(utf8proc_int32_t codePoint) {
  switch (utf8proc_category(codePoint)) {
    case UTF8PROC_CATEGORY_LU:
    case UTF8PROC_CATEGORY_LL:
    case UTF8PROC_CATEGORY_LT:
    case UTF8PROC_CATEGORY_LM:
    case UTF8PROC_CATEGORY_LO:
    case UTF8PROC_CATEGORY_MN:
    case UTF8PROC_CATEGORY_MC:
    case UTF8PROC_CATEGORY_ND:
      return true;
    default:
      return false;
  }
}

bool allDigits(const std::string& word) {
  return std::all_of(word.begin(), word.end(), [](char c) { return c >= '0' && c <= '9'; });
}

/// The words of `text` with stop and generic words kept (for phrases).
std::vector<std::string> allWords(std::string_view text) {
  const std::string folded = text::foldCase(text);  // valid UTF-8, NFC
  std::vector<std::string> words;
  std::string word;
  const auto flush = [&] {
    if (word.size() >= 3 && !allDigits(word)) words.push_back(stem(std::move(word)));
    word.clear();
  };
  const auto* bytes = reinterpret_cast<const utf8proc_uint8_t*>(folded.data());
  utf8proc_ssize_t pos = 0;
  const auto size = static_cast<utf8proc_ssize_t>(folded.size());
  while (pos < size) {
    utf8proc_int32_t codePoint = 0;
    const utf8proc_ssize_t length = utf8proc_iterate(bytes + pos, size - pos, &codePoint);
    if (length <= 0) {  // foldCase's output is valid; never expected
      ++pos;
      flush();
      continue;
    }
    if (isWordCodePoint(codePoint)) {
      word.append(folded, static_cast<std::size_t>(pos), static_cast<std::size_t>(length));
    } else {
      flush();
    }
    pos += length;
  }
  flush();
  return words;
}

/// Adds the phrases of `text`: two words next to each other in it, neither a
/// stop word, at least one distinctive ("page transition").
void addPhrases(std::string_view text, std::set<std::pair<std::string, std::string>>& phrases) {
  const std::vector<std::string> words = allWords(text);
  for (std::size_t i = 1; i < words.size(); ++i) {
    const std::string& first = words[i - 1];
    const std::string& second = words[i];
    if (stopWords().count(first) != 0 || stopWords().count(second) != 0) continue;
    if (!isGenericWord(first) || !isGenericWord(second)) phrases.emplace(first, second);
  }
}

}  // namespace

std::vector<std::string> relevanceWords(std::string_view text) {
  return allWords(text);
}

bool isGenericWord(std::string_view word) {
  const std::string key(word);
  return stopWords().count(key) != 0 || workWords().count(key) != 0;
}

bool isCommonWord(std::string_view word) {
  return commonWords().count(std::string(word)) != 0;
}

Relevance::Relevance(const Commitment& commitment) {
  std::vector<std::string_view> texts = {commitment.nextAction, commitment.successCondition};
  for (const std::string& app : commitment.allowedApps) texts.push_back(app);
  for (const std::string_view text : texts) {
    for (std::string& word : allWords(text)) {
      if (!isGenericWord(word)) words_.insert(std::move(word));
    }
  }
  // The next action's phrases only: it says what is being done, while a
  // success condition often names the tools ("with gatsby-plugin-…"), whose
  // pairs would make any page about the tool relevant.
  addPhrases(commitment.nextAction, phrases_);
}

RelevanceResult Relevance::score(std::string_view title) const {
  RelevanceResult result;
  if (words_.empty()) return result;
  // The browser's own suffix is not the page's words ("… - Mozilla Firefox").
  const std::vector<std::string> words = allWords(normalizeTitle(title));
  std::size_t points = 0;
  bool specific = false;  // a word that is not a common one is among them
  for (const std::string& word : words) {
    if (words_.count(word) == 0) continue;
    if (std::find(result.shared.begin(), result.shared.end(), word) != result.shared.end()) {
      continue;
    }
    result.shared.push_back(word);
    ++points;
    if (!isCommonWord(word)) specific = true;
  }
  if (result.shared.empty()) return result;
  std::set<std::pair<std::string, std::string>> seen;
  for (std::size_t i = 1; i < words.size(); ++i) {
    std::pair<std::string, std::string> phrase(words[i - 1], words[i]);
    if (phrases_.count(phrase) != 0 && seen.insert(std::move(phrase)).second) ++points;
  }
  const std::size_t needed = std::min<std::size_t>(2, words_.size());
  result.relevant = points >= needed && (needed < 2 || specific);
  return result;
}

std::set<std::string> distinctiveWords(const Commitment& commitment) {
  return Relevance(commitment).words();
}

}  // namespace antidrift::drift

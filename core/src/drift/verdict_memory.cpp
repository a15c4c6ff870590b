#include "antidrift/drift/verdict_memory.h"

#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "antidrift/drift/relevance.h"
#include "antidrift/text/utf8.h"
#include "store/json_fields.h"

namespace antidrift::drift {
namespace {

bool shareWord(const std::set<std::string>& a, const std::set<std::string>& b) {
  const std::set<std::string>& small = a.size() <= b.size() ? a : b;
  const std::set<std::string>& large = a.size() <= b.size() ? b : a;
  return std::any_of(small.begin(), small.end(),
                     [&](const std::string& word) { return large.count(word) != 0; });
}

/// `words` cut to kMaxWords (the alphabetically first kept).
std::set<std::string> capped(std::set<std::string> words) {
  while (words.size() > VerdictMemory::kMaxWords) words.erase(std::prev(words.end()));
  return words;
}

}  // namespace

std::string_view toString(VerdictSource source) {
  return source == VerdictSource::You ? "you" : "judge";
}

std::optional<VerdictSource> parseVerdictSource(std::string_view text) {
  if (text == "judge") return VerdictSource::Judge;
  if (text == "you") return VerdictSource::You;
  return std::nullopt;
}

VerdictKeyView describeVerdictKey(const std::string& key) {
  VerdictKeyView view;
  const std::size_t newline = key.find('\n');
  if (newline == std::string::npos) {
    view.kind = "app";
    view.app = key;
    view.label = key;
    return view;
  }
  view.app = key.substr(0, newline);
  const std::string rest = key.substr(newline + 1);
  // A site named by the title ("site:youtube") or by URL evidence ("domain:youtube.com").
  for (const std::string prefix : {"site:", "domain:"}) {
    if (rest.rfind(prefix, 0) == 0) {
      view.kind = "site";
      view.label = rest.substr(prefix.size());
      return view;
    }
  }
  {
    view.kind = "page";
    view.label = rest;
  }
  return view;
}

std::set<std::string> memoryWords(const Commitment& commitment) {
  return distinctiveWords(commitment);
}

VerdictMemory::VerdictMemory(std::size_t maxEntries)
    : maxEntries_(std::max<std::size_t>(1, maxEntries)) {}

VerdictMemory& VerdictMemory::operator=(VerdictMemory&& other) noexcept {
  if (this == &other) return *this;
  maxEntries_ = other.maxEntries_;
  order_ = std::move(other.order_);
  slots_ = std::move(other.slots_);
  version_ = std::max(version_, other.version_) + 1;
  return *this;
}

void VerdictMemory::touch(Slot& slot) {
  order_.splice(order_.begin(), order_, slot.position);
}

void VerdictMemory::evict() {
  while (order_.size() > maxEntries_) {
    slots_.erase(order_.back());
    order_.pop_back();
  }
}

std::optional<RememberedVerdict> VerdictMemory::lookup(const std::string& key,
                                                       const std::set<std::string>& words,
                                                       std::int64_t nowMs) {
  const auto found = slots_.find(key);
  if (found == slots_.end() || !shareWord(found->second.verdict.words, words)) return std::nullopt;
  found->second.verdict.lastUsedMs = nowMs;
  touch(found->second);
  ++version_;
  return found->second.verdict;
}

bool VerdictMemory::remember(const std::string& rawKey, bool onTask, const std::string& reason,
                             VerdictSource source, const std::set<std::string>& words,
                             std::int64_t nowMs) {
  // Stored as written (serialize() writes valid UTF-8): a reload reads the same.
  const std::string key = jsonfields::validUtf8(rawKey);
  if (key.empty() || key.size() > kMaxKeyBytes || words.empty()) return false;
  RememberedVerdict verdict;
  verdict.onTask = onTask;
  verdict.reason = text::cutBytes(jsonfields::validUtf8(reason), kMaxReasonBytes);
  verdict.source = source;
  for (const std::string& word : words) verdict.words.insert(jsonfields::validUtf8(word));
  verdict.lastUsedMs = nowMs;
  const auto found = slots_.find(key);
  if (found != slots_.end()) {
    RememberedVerdict& old = found->second.verdict;
    const bool overlap = shareWord(old.words, words);
    // Corrections win: the judge does not overrule the person for the same work.
    if (source == VerdictSource::Judge && old.source == VerdictSource::You && overlap) return false;
    // The same verdict for more work: it is reusable for both commitments.
    if (overlap && old.onTask == onTask && old.source == source) {
      verdict.words.insert(old.words.begin(), old.words.end());
    }
    verdict.words = capped(std::move(verdict.words));
    old = std::move(verdict);
    touch(found->second);
  } else {
    verdict.words = capped(std::move(verdict.words));
    order_.push_front(key);
    slots_.emplace(key, Slot{std::move(verdict), order_.begin()});
    evict();
  }
  ++version_;
  return true;
}

bool VerdictMemory::erase(const std::string& key) {
  const auto found = slots_.find(key);
  if (found == slots_.end()) return false;
  order_.erase(found->second.position);
  slots_.erase(found);
  ++version_;
  return true;
}

void VerdictMemory::clear() {
  order_.clear();
  slots_.clear();
  ++version_;
}

std::vector<RememberedEntry> VerdictMemory::entries() const {
  std::vector<RememberedEntry> result;
  result.reserve(order_.size());
  for (const std::string& key : order_) result.push_back({key, slots_.at(key).verdict});
  return result;
}

std::string VerdictMemory::serialize() const {
  std::string text(kHeader);
  text += '\n';
  for (auto it = order_.rbegin(); it != order_.rend(); ++it) {
    const RememberedVerdict& verdict = slots_.at(*it).verdict;
    Poco::JSON::Object object;
    object.set("key", jsonfields::validUtf8(*it));
    object.set("on_task", verdict.onTask);
    object.set("reason", jsonfields::validUtf8(verdict.reason));
    object.set("source", std::string(toString(verdict.source)));
    Poco::JSON::Array words;
    for (const std::string& word : verdict.words) words.add(jsonfields::validUtf8(word));
    object.set("words", words);
    object.set("last_used", Poco::Int64(verdict.lastUsedMs));
    text += jsonfields::stringify(object);
    text += '\n';
  }
  return text;
}

VerdictMemory::Parsed VerdictMemory::parse(const std::string& text, std::size_t maxEntries) {
  Parsed parsed{VerdictMemory(maxEntries), 0};
  std::size_t start = 0;
  bool header = true;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(start, end - start);
    start = end + 1;
    if (header) {
      if (line != kHeader) {
        throw std::runtime_error("not a verdicts file (its first line is not " +
                                 std::string(kHeader) + ")");
      }
      header = false;
      continue;
    }
    if (line.empty()) continue;
    try {
      const Poco::JSON::Object::Ptr object = jsonfields::parseObject(line);
      const std::string key = jsonfields::requireString(*object, "key", "");
      if (!object->has("on_task") || !object->get("on_task").isBoolean()) {
        throw std::runtime_error("field \"on_task\" must be true or false");
      }
      const bool onTask = object->getValue<bool>("on_task");
      const std::string reason = jsonfields::requireString(*object, "reason", "");
      const std::optional<VerdictSource> source =
          parseVerdictSource(jsonfields::requireString(*object, "source", ""));
      if (!source) throw std::runtime_error("field \"source\" must be \"judge\" or \"you\"");
      const Poco::JSON::Array::Ptr wordsArray = jsonfields::requireArray(*object, "words", "");
      std::set<std::string> words;
      for (std::size_t index = 0; index < wordsArray->size(); ++index) {
        words.insert(jsonfields::requireStringAt(*wordsArray, index, "words"));
      }
      const std::int64_t lastUsed = jsonfields::requireInt(*object, "last_used", "");
      // Least recently used first: each entry read becomes the most recent.
      if (!parsed.memory.remember(key, onTask, reason, *source, words, lastUsed)) {
        ++parsed.skippedLines;
      }
    } catch (const std::exception&) {
      ++parsed.skippedLines;
    }
  }
  if (header) throw std::runtime_error("not a verdicts file (it is empty)");
  return parsed;
}

}  // namespace antidrift::drift

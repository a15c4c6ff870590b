// Fuzz target: the title sanitiser and the normalisers (docs/DESIGN.md §3; issue 6
// items 2 and 3): sanitizeTitle, normalizeApp, text::normalizeUnicode,
// text::foldCase and drift::normalizeTitle. Properties: none throws; every
// result is valid UTF-8; sanitizeTitle keeps no control character and at most
// kMaxTitleBytes; normalizeApp is never empty; normalizeUnicode and
// normalizeTitle are idempotent (their headers say so, and keys depend on it).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "antidrift/ai/judge.h"
#include "antidrift/drift/engine.h"
#include "antidrift/drift/rules.h"
#include "antidrift/drift/title_normalizer.h"
#include "antidrift/evidence/observation.h"
#include "antidrift/settings.h"
#include "antidrift/text/normalize.h"
#include "fuzz/fuzz_check.h"

using namespace antidrift;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view raw = fuzz::asText(data, size);

  const std::string title = sanitizeTitle(raw);
  fuzz::check(fuzz::isValidUtf8(title), "sanitizeTitle: valid UTF-8 (observation.h)");
  fuzz::check(title.size() <= kMaxTitleBytes, "sanitizeTitle: at most kMaxTitleBytes");
  fuzz::check(fuzz::hasNoAsciiControl(title), "sanitizeTitle: control characters dropped");

  const std::string app = normalizeApp(raw);
  fuzz::check(!app.empty() && fuzz::isValidUtf8(app),
              "normalizeApp: non-empty valid UTF-8 (observation.h)");

  const std::string normal = text::normalizeUnicode(raw);
  fuzz::check(fuzz::isValidUtf8(normal), "normalizeUnicode: valid UTF-8 (normalize.h)");
  fuzz::check(text::normalizeUnicode(normal) == normal, "normalizeUnicode: idempotent");

  const std::string folded = text::foldCase(raw);
  fuzz::check(fuzz::isValidUtf8(folded), "foldCase: valid UTF-8 (normalize.h)");

  const std::string key = drift::normalizeTitle(title);
  fuzz::check(fuzz::isValidUtf8(key), "normalizeTitle: valid UTF-8 (title_normalizer.h)");
  fuzz::check(drift::normalizeTitle(key) == key, "normalizeTitle: idempotent (title_normalizer.h)");

  // Issue 19 items 3 and 4: a title is never the own page without the tag,
  // and whatever the judge echoes of it shows as one labelled quote.
  static const drift::Rules rules = [] {
    Settings settings;
    settings.ownPageTag = "0a1b2c3d";
    return drift::Rules(settings);
  }();
  const Observation obs{0, "firefox", title, "fuzz", ""};
  if (key.find("0a1b2c3d") == std::string::npos) {
    fuzz::check(rules.classify(obs) != drift::WindowKind::OwnPage,
                "classify: no own page without the tag (rules.h, issue 19 item 3)");
  }
  const std::string shown = drift::judgeReason(raw);
  fuzz::check(fuzz::isValidUtf8(shown) && fuzz::hasNoAsciiControl(shown) &&
                  shown.rfind(drift::kJudgeLabel, 0) == 0 &&
                  std::count(shown.begin(), shown.end(), '"') == 2,
              "judgeReason: one labelled quote, one line (engine.h, issue 19 item 4)");
  ai::JudgeInput input;
  input.app = "firefox";
  input.title = title;
  const std::string prompt = ai::buildJudgePrompt(input);
  const std::string fence = "<<<END title>>>";
  fuzz::check(prompt.find(fence) == prompt.rfind(fence),
              "buildJudgePrompt: the title cannot close its fence (prompt.h, issue 19 item 4)");
  return 0;
}

// Fuzz target: the planning readers (docs/DESIGN.md §6): parseTodoTxt on todo.txt
// text and parseProfile on a profile file's bytes. Properties: neither throws;
// at most kMaxTasks tasks, each with clean, non-empty, valid UTF-8 text of at
// most kMaxFieldChars characters, a priority in A..Z and a due date
// YYYY-MM-DD or none; the profile is valid UTF-8, at most kMaxProfileBytes,
// `bytes` equal to its size and no text unless Ready.
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "antidrift/domain/commitment.h"
#include "antidrift/planning/profile.h"
#include "antidrift/planning/todo_txt.h"
#include "fuzz/fuzz_check.h"

using namespace antidrift;

namespace {

/// True for "YYYY-MM-DD" shaped text (digits and dashes in place).
bool looksLikeDate(const std::string& text) {
  if (text.size() != 10) return false;
  for (std::size_t index = 0; index < text.size(); ++index) {
    const bool dash = index == 4 || index == 7;
    if (dash ? text[index] != '-' : !std::isdigit(static_cast<unsigned char>(text[index]))) {
      return false;
    }
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes = fuzz::asText(data, size);

  const std::vector<planning::Task> tasks = planning::parseTodoTxt(bytes);
  fuzz::check(tasks.size() <= planning::kMaxTasks, "parseTodoTxt: at most kMaxTasks (todo_txt.h)");
  for (const planning::Task& task : tasks) {
    fuzz::check(!task.text.empty() && fuzz::isValidUtf8(task.text),
                "Task.text: non-empty valid UTF-8 (todo_txt.h)");
    fuzz::check(task.text.find_first_of("\r\n\t") == std::string::npos &&
                    task.text.find("  ") == std::string::npos,
                "Task.text: words separated by one space, no line breaks");
    fuzz::check(fuzz::countChars(task.text) <= kMaxFieldChars,
                "Task.text: at most kMaxFieldChars characters");
    fuzz::check(!task.priority || (*task.priority >= 'A' && *task.priority <= 'Z'),
                "Task.priority: A..Z");
    fuzz::check(task.due.empty() || looksLikeDate(task.due), "Task.due: YYYY-MM-DD or empty");
  }

  const planning::Profile profile = planning::parseProfile(bytes);
  fuzz::check(fuzz::isValidUtf8(profile.text), "Profile.text: valid UTF-8 (profile.h)");
  fuzz::check(
      profile.text.size() <= planning::kMaxProfileBytes && profile.bytes == profile.text.size(),
      "Profile: at most kMaxProfileBytes, bytes == text.size()");
  fuzz::check(profile.status == planning::LoadStatus::Ready || profile.text.empty(),
              "Profile: no text unless Ready");
  return 0;
}

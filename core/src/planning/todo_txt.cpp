#include "antidrift/planning/todo_txt.h"

#include <algorithm>
#include <tuple>

#include <Poco/DateTime.h>
#include <Poco/String.h>

#include "antidrift/domain/commitment.h"
#include "antidrift/text/utf8.h"
#include "planning/bounded_read.h"

namespace antidrift::planning {
namespace {

bool isDigit(char c) {
  return c >= '0' && c <= '9';
}

int digits(std::string_view text) {
  int value = 0;
  for (const char c : text) value = value * 10 + (c - '0');
  return value;
}

// True for a real calendar date written YYYY-MM-DD.
bool isDate(std::string_view text) {
  if (text.size() != 10 || text[4] != '-' || text[7] != '-') return false;
  for (const std::size_t i : {0, 1, 2, 3, 5, 6, 8, 9}) {
    if (!isDigit(text[i])) return false;
  }
  return Poco::DateTime::isValid(digits(text.substr(0, 4)), digits(text.substr(5, 2)),
                                 digits(text.substr(8, 2)));
}

void addUnique(std::vector<std::string>& list, std::string value) {
  if (std::find(list.begin(), list.end(), value) == list.end()) list.push_back(std::move(value));
}

std::optional<Task> parseLine(std::string_view raw) {
  const std::string line = text::oneLine(raw);
  if (line.empty() || line.rfind("x ", 0) == 0) return std::nullopt;
  Task task;
  std::string_view rest = line;
  if (rest.size() >= 4 && rest[0] == '(' && rest[1] >= 'A' && rest[1] <= 'Z' && rest[2] == ')' &&
      rest[3] == ' ') {
    task.priority = rest[1];
    rest.remove_prefix(4);
  }
  rest.remove_prefix(std::min(rest.find_first_not_of(' '), rest.size()));
  if (rest.size() >= 10 && isDate(rest.substr(0, 10)) && (rest.size() == 10 || rest[10] == ' ')) {
    rest.remove_prefix(10);  // creation date
  }
  std::string text;
  while (!rest.empty()) {
    const std::size_t start = rest.find_first_not_of(' ');
    if (start == std::string_view::npos) break;
    rest.remove_prefix(start);
    const std::size_t end = std::min(rest.find(' '), rest.size());
    const std::string_view word = rest.substr(0, end);
    rest.remove_prefix(end);
    if (word.size() > 4 && word.substr(0, 4) == "due:" && isDate(word.substr(4))) {
      if (task.due.empty()) task.due = std::string(word.substr(4));
      continue;
    }
    if (word.size() > 1 && word[0] == '+') addUnique(task.projects, std::string(word.substr(1)));
    if (word.size() > 1 && word[0] == '@') addUnique(task.contexts, std::string(word.substr(1)));
    if (!text.empty()) text += ' ';
    text.append(word);
  }
  if (text.empty()) return std::nullopt;
  task.text = text::cutCodePoints(text, kMaxFieldChars);
  return task;
}

}  // namespace

std::vector<Task> parseTodoTxt(std::string_view text) {
  std::vector<Task> tasks;
  while (!text.empty()) {
    const std::size_t end = std::min(text.find('\n'), text.size());
    if (std::optional<Task> task = parseLine(text.substr(0, end)))
      tasks.push_back(std::move(*task));
    text.remove_prefix(std::min(end + 1, text.size()));
  }
  const auto rank = [](const Task& task) {
    return std::make_tuple(!task.priority.has_value(), task.priority.value_or('Z'),
                           task.due.empty(), std::string_view(task.due));
  };
  std::stable_sort(tasks.begin(), tasks.end(),
                   [&](const Task& a, const Task& b) { return rank(a) < rank(b); });
  if (tasks.size() > kMaxTasks) tasks.resize(kMaxTasks);
  return tasks;
}

TaskList loadTodoTxt(const std::string& path) {
  try {
    std::optional<detail::FilePrefix> file = detail::readPrefix(path, kMaxTodoTxtBytes);
    if (!file) return {};
    if (file->truncated) {
      const std::size_t lastBreak = file->bytes.rfind('\n');
      file->bytes.resize(lastBreak == std::string::npos ? 0 : lastBreak);
    }
    return TaskList{LoadStatus::Ready, parseTodoTxt(file->bytes)};
  } catch (const std::exception&) {
    return {};
  }
}

}  // namespace antidrift::planning

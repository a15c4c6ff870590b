// Tests for the todo.txt grounding (core/include/antidrift/planning/todo_txt.h; docs/DESIGN.md §6).
#include "antidrift/planning/todo_txt.h"

#include <string>
#include <vector>

#include <Poco/File.h>
#include <Poco/TemporaryFile.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/temp_dir.h"

namespace antidrift::planning {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

std::vector<std::string> texts(const std::vector<Task>& tasks) {
  std::vector<std::string> out;
  for (const Task& task : tasks) out.push_back(task.text);
  return out;
}

using test::writeWholeFile;

TEST(ParseTodoTxt, ReadsPriorityProjectsContextsAndDue) {
  const std::vector<Task> tasks =
      parseTodoTxt("(A) 2026-05-01 Call Mom +Family +Family @phone due:2026-12-01 about tea\n");
  ASSERT_EQ(tasks.size(), 1u);
  const Task& task = tasks[0];
  EXPECT_EQ(task.text, "Call Mom +Family +Family @phone about tea");
  EXPECT_EQ(task.priority, 'A');
  EXPECT_THAT(task.projects, ElementsAre("Family"));
  EXPECT_THAT(task.contexts, ElementsAre("phone"));
  EXPECT_EQ(task.due, "2026-12-01");
}

TEST(ParseTodoTxt, SkipsCompletedBlankAndEmptyLines) {
  const std::vector<Task> tasks = parseTodoTxt(
      "x 2026-05-02 2026-05-01 Done already +Old\n"
      "\n"
      "   \n"
      "xylophone practice\n"
      "x\n"
      "(B) due:2026-01-01\n"
      "Write report\n");
  EXPECT_THAT(texts(tasks), ElementsAre("xylophone practice", "x", "Write report"));
}

TEST(ParseTodoTxt, HandlesCrlfAndTabs) {
  const std::vector<Task> tasks = parseTodoTxt("(C) First\ttask\r\nSecond task\r\n\r\n");
  EXPECT_THAT(texts(tasks), ElementsAre("First task", "Second task"));
  EXPECT_EQ(tasks[0].priority, 'C');
}

TEST(ParseTodoTxt, OnlyWellFormedPrioritiesAndDatesAreMetadata) {
  const std::vector<Task> tasks = parseTodoTxt(
      "(a) lower-case is not a priority\n"
      "(A)no space is not a priority\n"
      "2026-02-30 is not a date\n"
      "Fix bug due:2026-13-01 +a+b @\n");
  ASSERT_EQ(tasks.size(), 4u);
  for (const Task& task : tasks) EXPECT_FALSE(task.priority.has_value()) << task.text;
  EXPECT_EQ(tasks[0].text, "(a) lower-case is not a priority");
  EXPECT_EQ(tasks[1].text, "(A)no space is not a priority");
  EXPECT_EQ(tasks[2].text, "2026-02-30 is not a date");
  EXPECT_EQ(tasks[3].text, "Fix bug due:2026-13-01 +a+b @");
  EXPECT_EQ(tasks[3].due, "");
  EXPECT_THAT(tasks[3].projects, ElementsAre("a+b"));
  EXPECT_THAT(tasks[3].contexts, IsEmpty());
}

TEST(ParseTodoTxt, SortsByPriorityThenDueThenFileOrder) {
  const std::vector<Task> tasks = parseTodoTxt(
      "plain one\n"
      "(B) b without due\n"
      "due later due:2026-09-01\n"
      "(A) a due late due:2026-12-01\n"
      "(B) b due soon due:2026-06-01\n"
      "plain two\n"
      "(A) a without due\n"
      "due sooner due:2026-07-01\n"
      "(A) a due early due:2026-06-15\n");
  EXPECT_THAT(texts(tasks),
              ElementsAre("a due early", "a due late", "a without due", "b due soon",
                          "b without due", "due sooner", "due later", "plain one", "plain two"));
}

TEST(ParseTodoTxt, KeepsTheFiftyHighestRanked) {
  std::string text;
  for (int i = 0; i < 60; ++i) text += "task " + std::to_string(i) + "\n";
  text += "(Z) ranked last by priority but above unprioritised\n";
  const std::vector<Task> tasks = parseTodoTxt(text);
  ASSERT_EQ(tasks.size(), kMaxTasks);
  EXPECT_EQ(tasks.front().text, "ranked last by priority but above unprioritised");
  EXPECT_EQ(tasks[1].text, "task 0");
  EXPECT_EQ(tasks.back().text, "task 48");
}

TEST(ParseTodoTxt, MakesTextSafe) {
  const std::vector<Task> tasks =
      parseTodoTxt("Bad \xff bytes\x07 here\n" + std::string(600, 'y') + "\n");
  ASSERT_EQ(tasks.size(), 2u);
  EXPECT_EQ(tasks[0].text, "Bad \xEF\xBF\xBD bytes here");
  EXPECT_EQ(tasks[1].text, std::string(500, 'y'));
}

TEST(LoadTodoTxt, MissingOrUnusablePathsAreNone) {
  EXPECT_EQ(loadTodoTxt("").status, LoadStatus::None);
  EXPECT_EQ(loadTodoTxt("/nonexistent/dir/todo.txt").status, LoadStatus::None);
  Poco::TemporaryFile directory;
  directory.createDirectories();
  const TaskList fromDirectory = loadTodoTxt(directory.path());
  EXPECT_EQ(fromDirectory.status, LoadStatus::None);
  EXPECT_THAT(fromDirectory.tasks, IsEmpty());
  EXPECT_EQ(toString(LoadStatus::None), "none");
}

TEST(LoadTodoTxt, ReadsARealFile) {
  Poco::TemporaryFile file;
  writeWholeFile(file.path(), "(A) Write the summary +Report\nx done\n");
  const TaskList list = loadTodoTxt(file.path());
  EXPECT_EQ(list.status, LoadStatus::Ready);
  EXPECT_THAT(texts(list.tasks), ElementsAre("Write the summary +Report"));
  EXPECT_EQ(toString(list.status), "ready");
}

TEST(LoadTodoTxt, EmptyFileIsReadyWithNoTasks) {
  Poco::TemporaryFile file;
  writeWholeFile(file.path(), "");
  const TaskList list = loadTodoTxt(file.path());
  EXPECT_EQ(list.status, LoadStatus::Ready);
  EXPECT_THAT(list.tasks, IsEmpty());
}

TEST(LoadTodoTxt, DropsTheLineCutByTheSizeLimit) {
  Poco::TemporaryFile file;
  const std::string first = "(A) first line\n";
  std::string content = first + std::string(kMaxTodoTxtBytes - first.size() - 10, 'p') + "\n";
  content += "(A) cut in the middle of this line\n";
  writeWholeFile(file.path(), content);
  const TaskList list = loadTodoTxt(file.path());
  EXPECT_EQ(list.status, LoadStatus::Ready);
  ASSERT_EQ(list.tasks.size(), 2u);
  EXPECT_EQ(list.tasks[0].text, "first line");
  EXPECT_EQ(list.tasks[1].text, std::string(500, 'p'));
}

}  // namespace
}  // namespace antidrift::planning

/// @file ipc_window_test.cpp
/// Windows in i3 IPC JSON (server/sway/ipc_window.h): the shapes sway 1.7 and i3 send
/// (docs/TECH-NOTES.md §7).

#include "server/sway/ipc_window.h"

#include <gtest/gtest.h>

#include <string>

namespace antidrift::sway {
namespace {

/// A sway tree: root → output → workspace → a Wayland window and an XWayland window, plus a
/// floating Wayland window. `focusedId` marks one node focused.
std::string swayTree(int focusedId) {
  auto focused = [focusedId](int id) { return id == focusedId ? "true" : "false"; };
  return std::string(R"({"id":1,"type":"root","name":"root","focused":)") + focused(1) +
         R"(,"nodes":[{"id":2,"type":"output","name":"HEADLESS-1","focused":)" + focused(2) +
         R"(,"nodes":[{"id":3,"type":"workspace","name":"1","focused":)" + focused(3) +
         R"(,"nodes":[{"id":4,"type":"con","name":"first-window","app_id":"foot","focused":)" +
         focused(4) +
         R"(,"nodes":[]},{"id":5,"type":"con","name":"Mozilla Firefox","app_id":null,)"
         R"("window_properties":{"class":"firefox","instance":"Navigator"},"focused":)" +
         focused(5) +
         R"(,"nodes":[]}],"floating_nodes":[{"id":6,"type":"floating_con",)"
         R"("name":null,"app_id":"editor","focused":)" +
         focused(6) + R"(,"nodes":[]}]}]}]})";
}

TEST(IpcWindowTest, TheFocusedWaylandWindowHasItsAppIdAndTitle) {
  const TreeReading reading = readFocusedWindow(swayTree(4));
  ASSERT_TRUE(reading.valid) << reading.error;
  ASSERT_TRUE(reading.focused);
  EXPECT_EQ(reading.focused->id, 4);
  EXPECT_EQ(reading.focused->app, "foot");
  EXPECT_EQ(reading.focused->title, "first-window");
}

TEST(IpcWindowTest, AnXWaylandOrI3WindowFallsBackToTheX11Class) {
  const TreeReading reading = readFocusedWindow(swayTree(5));
  ASSERT_TRUE(reading.focused);
  EXPECT_EQ(reading.focused->app, "firefox");
  EXPECT_EQ(reading.focused->title, "Mozilla Firefox");
}

TEST(IpcWindowTest, AFloatingWindowIsFoundAndANullTitleIsEmpty) {
  const TreeReading reading = readFocusedWindow(swayTree(6));
  ASSERT_TRUE(reading.focused);
  EXPECT_EQ(reading.focused->app, "editor");
  EXPECT_EQ(reading.focused->title, "");
}

TEST(IpcWindowTest, AFocusedEmptyWorkspaceIsNoWindow) {
  const TreeReading reading = readFocusedWindow(swayTree(3));
  EXPECT_TRUE(reading.valid);
  EXPECT_FALSE(reading.focused);
  EXPECT_FALSE(readFocusedWindow(swayTree(99)).focused);  // nothing focused at all
}

TEST(IpcWindowTest, TheClassFallsBackToTheInstanceThenToNothing) {
  const TreeReading instance = readFocusedWindow(
      R"({"type":"con","focused":true,"name":"x","window_properties":{"instance":"xterm"}})");
  ASSERT_TRUE(instance.focused);
  EXPECT_EQ(instance.focused->app, "xterm");
  const TreeReading nothing = readFocusedWindow(R"({"type":"con","focused":true,"name":"x"})");
  ASSERT_TRUE(nothing.focused);
  EXPECT_EQ(nothing.focused->app, "");
}

TEST(IpcWindowTest, MalformedTreesAreAValueNeverAnException) {
  for (const std::string& bad :
       {std::string(""), std::string("{"), std::string("[1,2]"), std::string("\"text\""),
        std::string(R"({"nodes":"not an array"})"), std::string(R"({"nodes":[1,"x",null]})"),
        std::string(R"({"type":"con","focused":"yes","nodes":[{"type":7,"focused":true}]})")}) {
    TreeReading reading;
    ASSERT_NO_THROW(reading = readFocusedWindow(bad)) << bad;
    EXPECT_FALSE(reading.focused) << bad;
  }
  EXPECT_FALSE(readFocusedWindow("{").valid);
  EXPECT_FALSE(readFocusedWindow("{").error.empty());
  EXPECT_FALSE(readFocusedWindow("[1]").valid);
}

TEST(IpcWindowTest, AVeryDeepTreeIsSearchedOnlySoFar) {
  std::string tree;
  for (int depth = 0; depth < 5000; ++depth) {
    tree += R"({"type":"con","nodes":[)";
  }
  tree += R"({"type":"con","focused":true})";
  for (int depth = 0; depth < 5000; ++depth) {
    tree += "]}";
  }
  TreeReading reading;
  ASSERT_NO_THROW(reading = readFocusedWindow(tree));
  EXPECT_FALSE(reading.focused);
}

TEST(IpcWindowTest, WindowEventsSayWhatChangedAndOnWhichContainer) {
  const WindowEvent focus = readWindowEvent(
      R"({"change":"focus","container":{"id":7,"type":"con","app_id":"foot","name":"a"}})");
  ASSERT_TRUE(focus.valid) << focus.error;
  EXPECT_EQ(focus.change, WindowChange::Focus);
  EXPECT_EQ(focus.container.id, 7);
  EXPECT_EQ(focus.container.app, "foot");
  EXPECT_EQ(focus.container.title, "a");
  EXPECT_EQ(readWindowEvent(R"({"change":"title","container":{"id":7}})").change,
            WindowChange::Title);
  EXPECT_EQ(readWindowEvent(R"({"change":"close","container":{"id":7}})").change,
            WindowChange::Close);
  EXPECT_EQ(readWindowEvent(R"({"change":"fullscreen_mode","container":{"id":7}})").change,
            WindowChange::Other);
}

TEST(IpcWindowTest, AWindowEventWithoutAContainerOrWithBrokenJsonIsInvalid) {
  EXPECT_FALSE(readWindowEvent(R"({"change":"focus"})").valid);
  EXPECT_FALSE(readWindowEvent(R"({"change":"focus","container":[]})").valid);
  EXPECT_FALSE(readWindowEvent("not json").valid);
  EXPECT_FALSE(readWindowEvent("not json").error.empty());
  const WindowEvent strange =
      readWindowEvent(R"({"change":"focus","container":{"id":"x","app_id":5,"name":[]}})");
  ASSERT_TRUE(strange.valid);  // wrong field types read as empty, not as an error
  EXPECT_EQ(strange.container.id, 0);
  EXPECT_EQ(strange.container.app, "");
  EXPECT_EQ(strange.container.title, "");
}

}  // namespace
}  // namespace antidrift::sway

/// @file ipc_window.cpp
/// Windows in i3 IPC JSON (docs/TECH-NOTES.md §7).

#include "server/sway/ipc_window.h"

#include <Poco/Exception.h>
#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>

#include <exception>

namespace antidrift::sway {

namespace {

using Poco::JSON::Array;
using Poco::JSON::Object;

/// Deeper trees than this are not searched (real ones are a few levels deep).
constexpr int kMaxTreeDepth = 64;

/// The string at `key`, "" when absent, null or not a string.
std::string stringField(const Object& object, const std::string& key) {
  if (!object.has(key) || object.isNull(key)) {
    return "";
  }
  const Poco::Dynamic::Var value = object.get(key);
  return value.isString() ? value.extract<std::string>() : std::string();
}

IpcWindow windowFrom(const Object& node) {
  IpcWindow window;
  if (node.has("id") && node.get("id").isNumeric()) {
    window.id = node.get("id").convert<std::int64_t>();
  }
  window.app = stringField(node, "app_id");
  if (window.app.empty()) {
    const Object::Ptr properties = node.getObject("window_properties");
    if (properties) {
      window.app = stringField(*properties, "class");
      if (window.app.empty()) {
        window.app = stringField(*properties, "instance");
      }
    }
  }
  window.title = stringField(node, "name");
  return window;
}

bool isWindowNode(const Object& node) {
  const std::string type = stringField(node, "type");
  return type == "con" || type == "floating_con";
}

/// Depth-first search for the focused node. Sets `found` when it is a window.
/// Returns true once the focused node was seen (window or not), to stop the search.
bool findFocused(const Object& node, int depth, std::optional<IpcWindow>& found) {
  if (node.has("focused") && node.get("focused").isBoolean() && node.getValue<bool>("focused")) {
    if (isWindowNode(node)) {
      found = windowFrom(node);
    }
    return true;
  }
  if (depth >= kMaxTreeDepth) {
    return false;
  }
  for (const char* key : {"nodes", "floating_nodes"}) {
    const Array::Ptr children = node.getArray(key);
    if (!children) {
      continue;
    }
    for (std::size_t index = 0; index < children->size(); ++index) {
      const Object::Ptr child = children->getObject(static_cast<unsigned>(index));
      if (child && findFocused(*child, depth + 1, found)) {
        return true;
      }
    }
  }
  return false;
}

Object::Ptr parseObject(const std::string& json, std::string& error) {
  try {
    Poco::JSON::Parser parser;
    const Poco::Dynamic::Var parsed = parser.parse(json);
    if (parsed.type() != typeid(Object::Ptr)) {
      error = "the payload is not a JSON object";
      return nullptr;
    }
    return parsed.extract<Object::Ptr>();
  } catch (const Poco::Exception& failure) {
    error = "the payload is not valid JSON: " + failure.displayText();
  } catch (const std::exception& failure) {
    error = std::string("the payload is not valid JSON: ") + failure.what();
  }
  return nullptr;
}

}  // namespace

TreeReading readFocusedWindow(const std::string& treeJson) {
  TreeReading reading;
  const Object::Ptr root = parseObject(treeJson, reading.error);
  if (!root) {
    return reading;
  }
  try {
    findFocused(*root, 0, reading.focused);
    reading.valid = true;
  } catch (const std::exception& failure) {
    reading.focused.reset();
    reading.error = std::string("the tree has an unexpected shape: ") + failure.what();
  }
  return reading;
}

WindowEvent readWindowEvent(const std::string& payload) {
  WindowEvent event;
  const Object::Ptr root = parseObject(payload, event.error);
  if (!root) {
    return event;
  }
  try {
    const Object::Ptr container = root->getObject("container");
    if (!container) {
      event.error = "the window event has no container object";
      return event;
    }
    const std::string change = stringField(*root, "change");
    if (change == "focus") {
      event.change = WindowChange::Focus;
    } else if (change == "title") {
      event.change = WindowChange::Title;
    } else if (change == "close") {
      event.change = WindowChange::Close;
    }
    event.container = windowFrom(*container);
    event.valid = true;
  } catch (const std::exception& failure) {
    event.error = std::string("the window event has an unexpected shape: ") + failure.what();
  }
  return event;
}

}  // namespace antidrift::sway

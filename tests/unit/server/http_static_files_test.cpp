#include "server/http/static_files.h"

#include <gtest/gtest.h>

namespace antidrift::http {
namespace {

TEST(StaticFilesPath, RootIsIndexAndSafeSegmentsPass) {
  EXPECT_EQ(StaticFiles::relativePath("/"), "index.html");
  EXPECT_EQ(StaticFiles::relativePath("/app.js"), "app.js");
  EXPECT_EQ(StaticFiles::relativePath("/views/active-view_2.js"), "views/active-view_2.js");
}

TEST(StaticFilesPath, RefusesTraversalHiddenEmptyAndOddCharacters) {
  for (const char* path : {"", "app.js", "/../etc/passwd", "/a/../b", "/.token", "/a//b", "/a/",
                           "/a b.js", "/a%2e.js", "/a\\b"}) {
    EXPECT_EQ(StaticFiles::relativePath(path), std::nullopt) << path;
  }
}

TEST(StaticFilesPath, ContentTypeByExtension) {
  EXPECT_EQ(StaticFiles::contentTypeFor("index.html"), "text/html; charset=utf-8");
  EXPECT_EQ(StaticFiles::contentTypeFor("views/net.mjs"), "text/javascript; charset=utf-8");
  EXPECT_EQ(StaticFiles::contentTypeFor("style.css"), "text/css; charset=utf-8");
  EXPECT_EQ(StaticFiles::contentTypeFor("blob"), "application/octet-stream");
}

}  // namespace
}  // namespace antidrift::http

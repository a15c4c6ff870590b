/// @file static_files.h
/// The page's files (docs/DESIGN.md §10, §11): GET of anything under server.www_dir
/// that is not a route, with safe paths only, the token injected into
/// index.html and a Content-Security-Policy on HTML.
#pragma once

#include <mutex>
#include <optional>
#include <string>

namespace Poco::Net {
class HTTPServerResponse;
}  // namespace Poco::Net

namespace antidrift::http {

/// Serves files from one directory. Thread-safe: only the token can change
/// (setToken, under a mutex); serve() reads the file on every request (no
/// cache: an edited page is served at once).
class StaticFiles {
 public:
  /// The text in index.html replaced by the token (RequestGuard::token).
  static constexpr const char* kTokenPlaceholder = "{{ANTIDRIFT_TOKEN}}";
  /// The text in index.html replaced by drift::ownPageTag(token): the page
  /// ends its document.title with "AntiDrift <tag>" (issue 19 item 3).
  static constexpr const char* kPageTagPlaceholder = "{{ANTIDRIFT_PAGE_TAG}}";
  /// The Content-Security-Policy of every HTML answer.
  static constexpr const char* kContentSecurityPolicy =
      "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
      "img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; "
      "form-action 'none'; frame-ancestors 'none'";

  /// `rootDirectory`: the directory of index.html (server.www_dir);
  /// `token`: the value put in place of kTokenPlaceholder in index.html;
  /// its drift::ownPageTag() goes in place of kPageTagPlaceholder (fixed for
  /// the life of this object).
  StaticFiles(std::string rootDirectory, std::string token);

  /// Pages served from now on carry `token` (POST /token/rotate, issue 19
  /// item 7). The page tag stays the one made from the first token: the
  /// drift rules (Settings::ownPageTag) know that tag until the daemon
  /// restarts, so pages served before and after a rotation both count as
  /// AntiDrift's own page. Thread-safe.
  void setToken(std::string token);

  /// Answers a GET of the decoded URL path `urlPath` ("/" is index.html):
  /// 200 with the file (HTML: Cache-Control no-store and the CSP; others:
  /// no-cache), or 404 {"error": "not found: <path>"} when the path is not
  /// safe (relativePath) or names no regular file. Throws Poco::Exception
  /// when the file exists but cannot be read or the socket fails.
  void serve(const std::string& urlPath, Poco::Net::HTTPServerResponse& response) const;

  /// The path relative to the root when `urlPath` is made only of safe
  /// segments ([A-Za-z0-9._-], none empty or starting with '.': no "..",
  /// no hidden files), "index.html" for "/"; nullopt otherwise. Pure.
  static std::optional<std::string> relativePath(const std::string& urlPath);

  /// The Content-Type for a file name by its extension (.html, .js, .mjs,
  /// .css, .json, .svg, .png, .ico, .txt, .webmanifest, .woff2);
  /// application/octet-stream for any other. Pure.
  static std::string contentTypeFor(const std::string& fileName);

 private:
  std::string rootDirectory_;
  mutable std::mutex tokenMutex_;
  std::string token_;    ///< guarded by tokenMutex_
  std::string pageTag_;  ///< drift::ownPageTag(the first token)
};

}  // namespace antidrift::http

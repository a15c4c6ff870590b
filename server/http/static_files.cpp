#include "server/http/static_files.h"

#include <sstream>
#include <utility>

#include <Poco/Exception.h>
#include <Poco/File.h>
#include <Poco/FileStream.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <Poco/String.h>

#include "antidrift/drift/rules.h"
#include "server/http/responses.h"

namespace antidrift::http {

StaticFiles::StaticFiles(std::string rootDirectory, std::string token)
    : rootDirectory_(std::move(rootDirectory)),
      token_(std::move(token)),
      pageTag_(drift::ownPageTag(token_)) {}

void StaticFiles::setToken(std::string token) {
  std::lock_guard<std::mutex> lock(tokenMutex_);
  token_ = std::move(token);
}

std::optional<std::string> StaticFiles::relativePath(const std::string& urlPath) {
  if (urlPath == "/") {
    return std::string("index.html");
  }
  if (urlPath.size() < 2 || urlPath.front() != '/') {
    return std::nullopt;
  }
  const std::string relative = urlPath.substr(1);
  std::size_t start = 0;
  while (start <= relative.size()) {
    const std::size_t slash = relative.find('/', start);
    const std::string segment =
        relative.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
    if (segment.empty() || segment.front() == '.') {
      return std::nullopt;
    }
    for (char c : segment) {
      const bool allowed = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                           (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_';
      if (!allowed) {
        return std::nullopt;
      }
    }
    if (slash == std::string::npos) {
      break;
    }
    start = slash + 1;
  }
  return relative;
}

std::string StaticFiles::contentTypeFor(const std::string& file) {
  static const std::pair<const char*, const char*> kTypes[] = {
      {".html", "text/html; charset=utf-8"},
      {".js", "text/javascript; charset=utf-8"},
      {".mjs", "text/javascript; charset=utf-8"},
      {".css", "text/css; charset=utf-8"},
      {".json", "application/json; charset=utf-8"},
      {".svg", "image/svg+xml"},
      {".png", "image/png"},
      {".ico", "image/x-icon"},
      {".txt", "text/plain; charset=utf-8"},
      {".webmanifest", "application/manifest+json"},
      {".woff2", "font/woff2"},
  };
  for (const auto& [extension, type] : kTypes) {
    const std::string suffix(extension);
    if (file.size() >= suffix.size() &&
        file.compare(file.size() - suffix.size(), suffix.size(), suffix) == 0) {
      return type;
    }
  }
  return "application/octet-stream";
}

void StaticFiles::serve(const std::string& urlPath, Poco::Net::HTTPServerResponse& response) const {
  const auto relative = relativePath(urlPath);
  const std::string fullPath = relative ? rootDirectory_ + "/" + *relative : std::string();
  bool found = false;
  if (relative) {
    try {
      Poco::File file(fullPath);
      found = file.exists() && file.isFile();
    } catch (const Poco::Exception&) {
      found = false;
    }
  }
  if (!found) {
    sendError(response, 404, "not found: " + sanitizeRequestText(urlPath));
    return;
  }
  std::string content;
  {
    Poco::FileInputStream in(fullPath);
    std::ostringstream buffer;
    buffer << in.rdbuf();
    content = buffer.str();
  }
  const std::string type = contentTypeFor(*relative);
  if (*relative == "index.html") {
    std::string token;
    {
      std::lock_guard<std::mutex> lock(tokenMutex_);
      token = token_;
    }
    Poco::replaceInPlace(content, std::string(kTokenPlaceholder), token);
    Poco::replaceInPlace(content, std::string(kPageTagPlaceholder), pageTag_);
  }
  if (type.rfind("text/html", 0) == 0) {
    response.set("Content-Security-Policy", kContentSecurityPolicy);
    response.set("Cache-Control", "no-store");
  } else {
    response.set("Cache-Control", "no-cache");
  }
  sendBody(response, 200, type, content);
}

}  // namespace antidrift::http

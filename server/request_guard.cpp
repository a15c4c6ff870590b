#include "server/request_guard.h"

#include <cctype>
#include <stdexcept>

#include <Poco/Net/HTTPRequest.h>
#include <Poco/String.h>

namespace antidrift {
namespace {

std::string lowerCase(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) {
    text.remove_prefix(1);
  }
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) {
    text.remove_suffix(1);
  }
  return text;
}

/// A TCP port: 1 to 5 digits, value 1..65535.
bool isPort(std::string_view text) {
  if (text.empty() || text.size() > 5) {
    return false;
  }
  unsigned value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') {
      return false;
    }
    value = value * 10 + static_cast<unsigned>(c - '0');
  }
  return value >= 1 && value <= 65535;
}

/// An authority split into lower-cased host name and port text ("" if none).
struct Authority {
  std::string name;
  std::string port;
};

/// Splits "name[:port]" or "[v6][:port]"; nullopt when malformed.
std::optional<Authority> splitAuthority(std::string_view text) {
  Authority result;
  std::string_view rest;
  if (!text.empty() && text.front() == '[') {
    const std::size_t close = text.find(']');
    if (close == std::string_view::npos) {
      return std::nullopt;
    }
    result.name = lowerCase(text.substr(0, close + 1));
    rest = text.substr(close + 1);
  } else {
    const std::size_t colon = text.find(':');
    result.name = lowerCase(text.substr(0, colon));
    rest = colon == std::string_view::npos ? std::string_view() : text.substr(colon);
  }
  if (result.name.empty()) {
    return std::nullopt;
  }
  if (!rest.empty()) {
    if (rest.front() != ':' || !isPort(rest.substr(1))) {
      return std::nullopt;
    }
    result.port = std::string(rest.substr(1));
  }
  return result;
}

GuardRejection reject(int status, std::string message) {
  return GuardRejection{status, std::move(message)};
}

}  // namespace

RequestHeaders RequestHeaders::from(const Poco::Net::HTTPRequest& request) {
  RequestHeaders headers;
  auto copy = [&request](const char* name) -> std::optional<std::string> {
    if (!request.has(name)) {
      return std::nullopt;
    }
    return request.get(name);
  };
  headers.host = copy("Host");
  headers.origin = copy("Origin");
  headers.contentType = copy("Content-Type");
  headers.token = copy(kTokenHeader);
  headers.authorization = copy(kAuthorizationHeader);
  headers.fetchSite = copy("Sec-Fetch-Site");
  headers.fetchMode = copy("Sec-Fetch-Mode");
  for (const char* name : {"Host", "Origin", "Content-Type", "Content-Length", "Transfer-Encoding",
                           "Sec-Fetch-Site", kTokenHeader, kAuthorizationHeader}) {
    int count = 0;
    for (const auto& [header, value] : request) {
      count += Poco::icompare(header, name) == 0 ? 1 : 0;
    }
    if (count > 1) {
      headers.ambiguity = std::string("the request has more than one ") + name + " header";
      break;
    }
  }
  if (!headers.ambiguity && request.has("Content-Length") && request.has("Transfer-Encoding")) {
    headers.ambiguity = "the request has both Content-Length and Transfer-Encoding";
  }
  return headers;
}

RequestGuard::RequestGuard(std::string token) : token_(std::move(token)) {
  if (token_.empty()) {
    throw std::invalid_argument("RequestGuard needs a non-empty token");
  }
}

bool RequestGuard::isLoopbackHost(std::string_view host) {
  const auto authority = splitAuthority(trim(host));
  if (!authority) {
    return false;
  }
  return authority->name == "127.0.0.1" || authority->name == "localhost" ||
         authority->name == "[::1]";
}

bool RequestGuard::isSameOrigin(std::string_view origin, std::string_view host) {
  constexpr std::string_view kScheme = "http://";
  origin = trim(origin);
  if (origin.size() <= kScheme.size() || lowerCase(origin.substr(0, kScheme.size())) != kScheme) {
    return false;
  }
  const auto fromOrigin = splitAuthority(origin.substr(kScheme.size()));
  const auto fromHost = splitAuthority(trim(host));
  if (!fromOrigin || !fromHost) {
    return false;
  }
  auto portOf = [](const Authority& a) { return a.port.empty() ? std::string("80") : a.port; };
  return fromOrigin->name == fromHost->name && portOf(*fromOrigin) == portOf(*fromHost);
}

bool RequestGuard::isJsonContentType(std::string_view contentType) {
  const std::size_t semicolon = contentType.find(';');
  return lowerCase(trim(contentType.substr(0, semicolon))) == "application/json";
}

bool RequestGuard::isExtensionOrigin(std::string_view origin) {
  origin = trim(origin);
  for (const std::string_view scheme :
       {std::string_view("moz-extension://"), std::string_view("chrome-extension://"),
        std::string_view("safari-web-extension://")}) {
    if (origin.size() <= scheme.size() || lowerCase(origin.substr(0, scheme.size())) != scheme) {
      continue;
    }
    const std::string_view id = origin.substr(scheme.size());
    for (const char c : id) {
      const bool ok =
          (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-';
      if (!ok) return false;
    }
    return true;
  }
  return false;
}

std::optional<std::string_view> RequestGuard::bearerCredentials(std::string_view authorization) {
  constexpr std::string_view kScheme = "bearer";
  authorization = trim(authorization);
  if (authorization.size() <= kScheme.size() ||
      lowerCase(authorization.substr(0, kScheme.size())) != kScheme ||
      (authorization[kScheme.size()] != ' ' && authorization[kScheme.size()] != '\t')) {
    return std::nullopt;
  }
  const std::string_view credentials = trim(authorization.substr(kScheme.size()));
  if (credentials.empty()) return std::nullopt;
  return credentials;
}

std::optional<GuardRejection> RequestGuard::checkHost(const RequestHeaders& headers) const {
  if (headers.ambiguity) {
    return reject(400, *headers.ambiguity);
  }
  if (!headers.host) {
    return reject(403, "the Host header is missing; use http://127.0.0.1 or http://localhost");
  }
  if (!isLoopbackHost(*headers.host)) {
    return reject(403, "the Host header must name this machine (127.0.0.1, localhost or [::1])");
  }
  return std::nullopt;
}

std::optional<GuardRejection> RequestGuard::checkFetchSite(const RequestHeaders& headers,
                                                           std::string_view path) const {
  if (!headers.fetchSite) {
    return std::nullopt;
  }
  const std::string site = lowerCase(trim(*headers.fetchSite));
  if (site != "cross-site" && site != "same-site") {
    return std::nullopt;
  }
  if (path == "/" && headers.fetchMode && lowerCase(trim(*headers.fetchMode)) == "navigate") {
    return std::nullopt;  // a link to the page opens it
  }
  return reject(403, "requests from other sites are not allowed (Sec-Fetch-Site: " + site + ")");
}

std::optional<GuardRejection> RequestGuard::checkMutating(const RequestHeaders& headers) const {
  if (headers.origin && !isSameOrigin(*headers.origin, headers.host.value_or(""))) {
    return reject(403, "cross-origin requests are not allowed");
  }
  const bool hasToken = headers.token && !trim(*headers.token).empty();
  if (!hasToken && !headers.authorization) {
    return reject(401, std::string("the ") + kTokenHeader + " header is missing");
  }
  if (hasToken && !tokenMatches(trim(*headers.token))) {
    // The likeliest cause is a rotated token (issue 19 item 7): say what to do.
    return reject(403, std::string("the ") + kTokenHeader +
                           " header is not valid (if the token was rotated: reload the page, "
                           "or read the token file again)");
  }
  if (headers.authorization) {
    const auto bearer = bearerCredentials(*headers.authorization);
    if (!bearer || !tokenMatches(*bearer)) {
      return reject(403, "the Authorization header is not valid: send Bearer and the token");
    }
  }
  if (!headers.contentType || !isJsonContentType(*headers.contentType)) {
    return reject(415, "the request body must have Content-Type: application/json");
  }
  return std::nullopt;
}

std::optional<GuardRejection> RequestGuard::checkActivityWatch(const RequestHeaders& headers,
                                                               bool post) const {
  if (headers.origin && !isExtensionOrigin(*headers.origin)) {
    return reject(403, "requests from web pages are not allowed on the ActivityWatch API");
  }
  if (headers.authorization) {
    const auto bearer = bearerCredentials(*headers.authorization);
    if (!bearer || !tokenMatches(*bearer)) {
      return reject(403,
                    "the Authorization header is not valid: send Bearer and the token of "
                    "AntiDrift's store (the API key), or no Authorization header");
    }
  }
  if (post && (!headers.contentType || !isJsonContentType(*headers.contentType))) {
    return reject(415, "the request body must have Content-Type: application/json");
  }
  return std::nullopt;
}

std::string RequestGuard::token() const {
  std::lock_guard<std::mutex> lock(tokenMutex_);
  return token_;
}

void RequestGuard::replaceToken(std::string token) {
  if (token.empty()) {
    throw std::invalid_argument("RequestGuard needs a non-empty token");
  }
  std::lock_guard<std::mutex> lock(tokenMutex_);
  token_ = std::move(token);
}

bool RequestGuard::tokenMatches(std::string_view presented) const {
  std::lock_guard<std::mutex> lock(tokenMutex_);
  // Constant time in the token's length: every byte is compared.
  unsigned char difference = presented.size() == token_.size() ? 0 : 1;
  for (std::size_t i = 0; i < token_.size(); ++i) {
    const char given = i < presented.size() ? presented[i] : '\0';
    difference |= static_cast<unsigned char>(given ^ token_[i]);
  }
  return difference == 0;
}

}  // namespace antidrift

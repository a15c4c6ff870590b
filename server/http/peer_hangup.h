/// @file peer_hangup.h
/// Whether the client of a connection has gone away, asked of the socket
/// without reading or writing (issue 9 item 6: a killed SSE client must not
/// hold its slot and thread until the next keep-alive; docs/DESIGN.md §10 "SSE").
#pragma once

#include <chrono>
#include <functional>

namespace Poco::Net {
class HTTPServerRequest;
}  // namespace Poco::Net

namespace antidrift::http {

/// True when the peer of socket `fd` has closed or reset the connection:
/// poll(2) without waiting reports POLLRDHUP, POLLHUP or POLLERR, or the
/// socket is readable and a peek reads end of file. Bytes the client sent
/// (a pipelined request) are not a hangup. Never blocks; thread-safe.
bool peerHasHungUp(int fd);

/// The descriptor of the connected socket `request` arrived on, or −1 for
/// a request without a socket (built in memory, as in tests and fuzzing).
/// Valid while the request is being handled (SseBroadcaster::subscribe
/// watches it for the client closing; issue 8 item 3). Never throws.
int peerSocket(Poco::Net::HTTPServerRequest& request);

/// A probe bound to the connection `request` arrived on, for
/// SseBroadcaster::stream: each call answers peerHasHungUp() for its socket.
/// Empty when the request has no socket (a request built in memory, as in
/// tests and fuzzing). The probe must not outlive the request.
std::function<bool()> hangupProbe(Poco::Net::HTTPServerRequest& request);

/// Sets the send buffer of the connection `request` arrived on to `bytes`
/// (SO_SNDBUF; the kernel doubles it and turns off its autotuning, which
/// would let a client that stopped reading pile up megabytes before a write
/// blocks). Does nothing for a request without a socket. Throws
/// Poco::Exception if the option cannot be set.
void limitSendBuffer(Poco::Net::HTTPServerRequest& request, int bytes);

/// Bounds each write to the connection `request` arrived on: a send blocked
/// longer than `timeout` (the client stopped reading and the buffers are
/// full) fails, so the stream ends instead of holding its thread forever.
/// Does nothing for a request without a socket. Throws Poco::Exception if
/// the option cannot be set.
void limitSendTime(Poco::Net::HTTPServerRequest& request, std::chrono::milliseconds timeout);

}  // namespace antidrift::http

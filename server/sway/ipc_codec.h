/// @file ipc_codec.h
/// The i3 IPC wire format that i3 and sway both speak (docs/TECH-NOTES.md §7;
/// https://i3wm.org/docs/ipc.html, sway-ipc(7)): the magic "i3-ipc", a 32-bit payload length and a
/// 32-bit message type, both in native byte order, then the JSON payload. Pure: no I/O, no JSON
/// parsing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace antidrift::sway {

/// The six bytes every message starts with.
inline constexpr char kIpcMagic[] = "i3-ipc";
/// Magic (6) + length (4) + type (4) bytes.
inline constexpr std::size_t kIpcHeaderBytes = 14;
/// The largest payload accepted, in bytes (16 MiB). A GET_TREE reply of a desktop with hundreds
/// of windows is well under 1 MiB; a larger length means a broken or hostile peer.
inline constexpr std::uint32_t kMaxIpcPayloadBytes = 16U * 1024 * 1024;

/// Message types sent to the server (i3 ipc.html "Sending messages").
enum class IpcRequest : std::uint32_t {
  RunCommand = 0,
  Subscribe = 2,
  GetTree = 4,
  GetVersion = 7,
};

/// The high bit of a type marks an event (as opposed to the reply to a request).
inline constexpr std::uint32_t kIpcEventBit = 0x80000000U;
/// "window" event: focus, title, close, new … of one container.
inline constexpr std::uint32_t kIpcWindowEvent = kIpcEventBit | 3U;
/// "shutdown" event: the server is exiting or restarting (i3 ≥ 4.14, sway).
inline constexpr std::uint32_t kIpcShutdownEvent = kIpcEventBit | 6U;

/// One decoded message: its raw type (events have kIpcEventBit) and its JSON payload, unparsed.
struct IpcMessage {
  std::uint32_t type = 0;
  std::string payload;

  /// Whether the server sent it on its own (an event) rather than as a reply.
  bool isEvent() const { return (type & kIpcEventBit) != 0; }
};

/// Frames `payload` as a message of `type`. Throws std::length_error when the payload is
/// larger than kMaxIpcPayloadBytes. Pure; thread-safe.
std::string encodeIpcMessage(std::uint32_t type, const std::string& payload);

/// What IpcDecoder::next() found.
enum class IpcDecodeStatus {
  NeedMore,  ///< no complete message buffered yet
  Message,   ///< one message was taken out of the buffer
  BadMagic,  ///< the stream does not start with "i3-ipc": out of step, cannot be resynchronised
  TooLarge,  ///< the announced payload exceeds the decoder's cap: the stream must be dropped
};

/// Cuts a byte stream into messages, whatever the pieces the socket delivers (a header split
/// over reads, several messages in one read). After BadMagic or TooLarge it stays in that
/// state: the connection must be closed. Not thread-safe: one reader owns it.
class IpcDecoder {
 public:
  /// `maxPayloadBytes`: the largest payload accepted (tests use a small cap).
  explicit IpcDecoder(std::uint32_t maxPayloadBytes = kMaxIpcPayloadBytes);

  /// Appends `size` received bytes. Call next() until it returns NeedMore after every append:
  /// then the buffer never holds more than one incomplete, capped message.
  void append(const char* data, std::size_t size);
  /// Takes the next complete message into `message` (Message), or says why not.
  IpcDecodeStatus next(IpcMessage& message);
  /// Bytes buffered and not yet returned as a message.
  std::size_t bufferedBytes() const { return buffer_.size() - consumed_; }

 private:
  std::uint32_t maxPayloadBytes_;
  std::string buffer_;
  std::size_t consumed_ = 0;  ///< bytes at the front of buffer_ already returned
  IpcDecodeStatus failure_ = IpcDecodeStatus::NeedMore;  ///< BadMagic/TooLarge once failed
};

}  // namespace antidrift::sway

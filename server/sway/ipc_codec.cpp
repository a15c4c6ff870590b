/// @file ipc_codec.cpp
/// The i3 IPC framing (docs/TECH-NOTES.md §7).

#include "server/sway/ipc_codec.h"

#include <cstring>
#include <stdexcept>

namespace antidrift::sway {

namespace {

constexpr std::size_t kMagicBytes = sizeof kIpcMagic - 1;

void appendNative(std::string& out, std::uint32_t value) {
  char bytes[sizeof value];
  std::memcpy(bytes, &value, sizeof value);
  out.append(bytes, sizeof value);
}

std::uint32_t readNative(const char* bytes) {
  std::uint32_t value = 0;
  std::memcpy(&value, bytes, sizeof value);
  return value;
}

}  // namespace

std::string encodeIpcMessage(std::uint32_t type, const std::string& payload) {
  if (payload.size() > kMaxIpcPayloadBytes) {
    throw std::length_error("an i3 IPC payload may hold at most " +
                            std::to_string(kMaxIpcPayloadBytes) + " bytes, got " +
                            std::to_string(payload.size()));
  }
  std::string message;
  message.reserve(kIpcHeaderBytes + payload.size());
  message.append(kIpcMagic, kMagicBytes);
  appendNative(message, static_cast<std::uint32_t>(payload.size()));
  appendNative(message, type);
  message += payload;
  return message;
}

IpcDecoder::IpcDecoder(std::uint32_t maxPayloadBytes) : maxPayloadBytes_(maxPayloadBytes) {}

void IpcDecoder::append(const char* data, std::size_t size) {
  if (failure_ != IpcDecodeStatus::NeedMore) {
    return;  // the stream is dead; keep nothing more of it
  }
  if (consumed_ > 0 && consumed_ == buffer_.size()) {
    buffer_.clear();
    consumed_ = 0;
  } else if (consumed_ > 64 * 1024 && consumed_ > buffer_.size() / 2) {
    buffer_.erase(0, consumed_);
    consumed_ = 0;
  }
  buffer_.append(data, size);
}

IpcDecodeStatus IpcDecoder::next(IpcMessage& message) {
  if (failure_ != IpcDecodeStatus::NeedMore) {
    return failure_;
  }
  const std::size_t available = buffer_.size() - consumed_;
  const char* start = buffer_.data() + consumed_;
  // Check the magic as soon as its bytes are there, so garbage is refused early.
  const std::size_t magicSeen = available < kMagicBytes ? available : kMagicBytes;
  if (std::memcmp(start, kIpcMagic, magicSeen) != 0) {
    failure_ = IpcDecodeStatus::BadMagic;
    buffer_.clear();
    consumed_ = 0;
    return failure_;
  }
  if (available < kIpcHeaderBytes) {
    return IpcDecodeStatus::NeedMore;
  }
  const std::uint32_t length = readNative(start + kMagicBytes);
  if (length > maxPayloadBytes_) {
    failure_ = IpcDecodeStatus::TooLarge;
    buffer_.clear();
    consumed_ = 0;
    return failure_;
  }
  if (available - kIpcHeaderBytes < length) {
    return IpcDecodeStatus::NeedMore;
  }
  message.type = readNative(start + kMagicBytes + 4);
  message.payload.assign(start + kIpcHeaderBytes, length);
  consumed_ += kIpcHeaderBytes + length;
  return IpcDecodeStatus::Message;
}

}  // namespace antidrift::sway

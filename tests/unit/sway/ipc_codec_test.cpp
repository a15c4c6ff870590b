/// @file ipc_codec_test.cpp
/// The i3 IPC framing (server/sway/ipc_codec.h; docs/TECH-NOTES.md §7).

#include "server/sway/ipc_codec.h"

#include <gtest/gtest.h>

#include <cstring>
#include <stdexcept>
#include <string>

namespace antidrift::sway {
namespace {

std::uint32_t nativeAt(const std::string& bytes, std::size_t offset) {
  std::uint32_t value = 0;
  std::memcpy(&value, bytes.data() + offset, sizeof value);
  return value;
}

std::string header(std::uint32_t length, std::uint32_t type) {
  std::string bytes = "i3-ipc";
  bytes.append(reinterpret_cast<const char*>(&length), 4);
  bytes.append(reinterpret_cast<const char*>(&type), 4);
  return bytes;
}

TEST(IpcCodecTest, EncodesMagicThenNativeLengthAndTypeThenPayload) {
  const std::string bytes = encodeIpcMessage(2, R"(["window"])");
  ASSERT_EQ(bytes.size(), kIpcHeaderBytes + 10);
  EXPECT_EQ(bytes.substr(0, 6), "i3-ipc");
  EXPECT_EQ(nativeAt(bytes, 6), 10u);
  EXPECT_EQ(nativeAt(bytes, 10), 2u);
  EXPECT_EQ(bytes.substr(14), R"(["window"])");
}

TEST(IpcCodecTest, AnEmptyPayloadIsJustTheHeader) {
  const std::string bytes = encodeIpcMessage(static_cast<std::uint32_t>(IpcRequest::GetTree), "");
  ASSERT_EQ(bytes.size(), kIpcHeaderBytes);
  EXPECT_EQ(nativeAt(bytes, 6), 0u);
  EXPECT_EQ(nativeAt(bytes, 10), 4u);
}

TEST(IpcCodecTest, RefusesToEncodeAnOversizedPayload) {
  EXPECT_THROW(encodeIpcMessage(0, std::string(kMaxIpcPayloadBytes + 1, 'x')), std::length_error);
}

TEST(IpcCodecTest, DecodesWhatItEncodes) {
  IpcDecoder decoder;
  const std::string bytes = encodeIpcMessage(4, R"({"id":1})");
  decoder.append(bytes.data(), bytes.size());
  IpcMessage message;
  ASSERT_EQ(decoder.next(message), IpcDecodeStatus::Message);
  EXPECT_EQ(message.type, 4u);
  EXPECT_EQ(message.payload, R"({"id":1})");
  EXPECT_FALSE(message.isEvent());
  EXPECT_EQ(decoder.next(message), IpcDecodeStatus::NeedMore);
  EXPECT_EQ(decoder.bufferedBytes(), 0u);
}

TEST(IpcCodecTest, AMessageArrivingOneByteAtATimeComesOutOnceComplete) {
  IpcDecoder decoder;
  const std::string bytes = encodeIpcMessage(kIpcWindowEvent, R"({"change":"focus"})");
  IpcMessage message;
  for (std::size_t index = 0; index + 1 < bytes.size(); ++index) {
    decoder.append(bytes.data() + index, 1);
    ASSERT_EQ(decoder.next(message), IpcDecodeStatus::NeedMore) << "after byte " << index;
  }
  decoder.append(bytes.data() + bytes.size() - 1, 1);
  ASSERT_EQ(decoder.next(message), IpcDecodeStatus::Message);
  EXPECT_EQ(message.payload, R"({"change":"focus"})");
}

TEST(IpcCodecTest, SeveralMessagesInOneReadAndOneSplitAcrossReads) {
  IpcDecoder decoder;
  const std::string first = encodeIpcMessage(kIpcWindowEvent, "{\"n\":1}");
  const std::string second = encodeIpcMessage(kIpcWindowEvent, "{\"n\":2}");
  const std::string third = encodeIpcMessage(kIpcShutdownEvent, "{\"change\":\"exit\"}");
  const std::string stream = first + second + third;
  const std::size_t cut = first.size() + second.size() + 9;  // inside the third header
  decoder.append(stream.data(), cut);
  IpcMessage message;
  ASSERT_EQ(decoder.next(message), IpcDecodeStatus::Message);
  EXPECT_EQ(message.payload, "{\"n\":1}");
  ASSERT_EQ(decoder.next(message), IpcDecodeStatus::Message);
  EXPECT_EQ(message.payload, "{\"n\":2}");
  ASSERT_EQ(decoder.next(message), IpcDecodeStatus::NeedMore);
  decoder.append(stream.data() + cut, stream.size() - cut);
  ASSERT_EQ(decoder.next(message), IpcDecodeStatus::Message);
  EXPECT_EQ(message.type, kIpcShutdownEvent);
  EXPECT_EQ(message.payload, "{\"change\":\"exit\"}");
}

TEST(IpcCodecTest, EventsCarryTheHighBit) {
  IpcMessage message;
  message.type = 0x80000003U;
  EXPECT_TRUE(message.isEvent());
  EXPECT_EQ(message.type, kIpcWindowEvent);
  message.type = static_cast<std::uint32_t>(IpcRequest::Subscribe);
  EXPECT_FALSE(message.isEvent());
}

TEST(IpcCodecTest, BadMagicIsRefusedAsSoonAsItsBytesArriveAndStaysRefused) {
  IpcDecoder decoder;
  decoder.append("i3-", 3);
  IpcMessage message;
  EXPECT_EQ(decoder.next(message), IpcDecodeStatus::NeedMore);  // a good start so far
  decoder.append("x", 1);
  EXPECT_EQ(decoder.next(message), IpcDecodeStatus::BadMagic);
  const std::string good = encodeIpcMessage(4, "{}");
  decoder.append(good.data(), good.size());
  EXPECT_EQ(decoder.next(message), IpcDecodeStatus::BadMagic);  // out of step for good
  EXPECT_EQ(decoder.bufferedBytes(), 0u);
}

TEST(IpcCodecTest, AHugeLengthIsRefusedBeforeAnyPayloadIsBuffered) {
  IpcDecoder decoder;
  const std::string bytes = header(0xFFFFFFF0U, kIpcWindowEvent);
  decoder.append(bytes.data(), bytes.size());
  IpcMessage message;
  EXPECT_EQ(decoder.next(message), IpcDecodeStatus::TooLarge);
  decoder.append("{}", 2);
  EXPECT_EQ(decoder.next(message), IpcDecodeStatus::TooLarge);
  EXPECT_EQ(decoder.bufferedBytes(), 0u);
}

TEST(IpcCodecTest, TheCapIsInclusive) {
  IpcDecoder decoder(8);
  const std::string fits = header(8, 4) + "12345678";
  decoder.append(fits.data(), fits.size());
  IpcMessage message;
  ASSERT_EQ(decoder.next(message), IpcDecodeStatus::Message);
  EXPECT_EQ(message.payload, "12345678");
  const std::string over = header(9, 4);
  decoder.append(over.data(), over.size());
  EXPECT_EQ(decoder.next(message), IpcDecodeStatus::TooLarge);
}

}  // namespace
}  // namespace antidrift::sway

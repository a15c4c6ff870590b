#include "session/verdict_file.h"

#include <exception>

#include <Poco/Logger.h>

namespace antidrift::session {
namespace {

Poco::Logger& logger() {
  return Poco::Logger::get("antidrift.session");
}

}  // namespace

void VerdictFile::connect(VerdictStore* store) {
  store_ = store;
  if (store == nullptr) return;
  const auto setAside = [store](const std::string& why) {
    try {
      const std::string where = store->setAside(why);
      logger().warning("the remembered verdicts are unusable (%s); moved to %s, starting afresh",
                       why, where);
    } catch (const std::exception& e) {
      logger().error("the remembered verdicts are unusable (%s) and could not be moved aside: %s",
                     why, std::string(e.what()));
    }
  };
  std::optional<std::string> text;
  try {
    text = store->load();
  } catch (const std::exception& e) {
    setAside(e.what());
  }
  if (text) {
    try {
      drift::VerdictMemory::Parsed parsed =
          drift::VerdictMemory::parse(*text, memory_.maxEntries());
      memory_ = std::move(parsed.memory);
      if (parsed.skippedLines > 0) {
        logger().warning("skipped %s unreadable lines of the remembered verdicts",
                         std::to_string(parsed.skippedLines));
      }
    } catch (const std::exception& e) {
      setAside(e.what());
    }
  }
  savedVersion_ = memory_.version();
}

bool VerdictFile::unsaved() const {
  return store_ != nullptr && memory_.version() != savedVersion_;
}

void VerdictFile::saveIfUnsaved() {
  dueMono_.reset();
  if (!unsaved()) return;
  try {
    store_->save(memory_.serialise());
    savedVersion_ = memory_.version();
  } catch (const std::exception& e) {
    // Kept in memory; the next write tries again.
    logger().error("could not write the remembered verdicts: %s", std::string(e.what()));
  }
}

void VerdictFile::scheduleIfUnsaved(std::int64_t dueMono) {
  if (unsaved() && !dueMono_) dueMono_ = dueMono;
}

VerdictFile::Forgot VerdictFile::forget(const std::optional<std::string>& key) {
  const std::string before = memory_.serialise();
  if (key) {
    if (!memory_.erase(*key)) return Forgot::NotFound;
  } else {
    memory_.clear();
  }
  if (store_ != nullptr) {
    try {
      store_->save(memory_.serialise());
      savedVersion_ = memory_.version();
    } catch (const std::exception& e) {
      logger().error("could not write the remembered verdicts; nothing forgotten: %s",
                     std::string(e.what()));
      memory_ = std::move(drift::VerdictMemory::parse(before, memory_.maxEntries()).memory);
      return Forgot::WriteFailed;
    }
  }
  logger().information(key ? "forgot one remembered verdict" : "forgot every remembered verdict");
  return Forgot::Done;
}

}  // namespace antidrift::session

/// @file async_slot.h
/// The generation-guarded asynchronous call, written once (docs/DESIGN.md §6,
/// docs/CONVENTIONS.md "Concurrency", seeds 003/000/004): an Epoch (the guard, in
/// antidrift/epoch.h), one generic launchGuarded (the launch dance), and
/// AsyncSlot (a status/value/error holder on top of both) for the coach, the
/// tasks, the profile and the reviewer. The drift judge (one call in flight per key, one Epoch for
/// all keys) and the nudger (whose advisory survives an error) use the generic launchGuarded with
/// an Epoch of their own.
///
/// The pattern: under the owner's mutex, decide and take a token from the
/// Epoch (or `slot.begin()`); capture what the work needs; unlock and notify
/// (pending); then `launchGuarded(...)`. The work runs on the executor off the
/// lock; its result is applied under the lock only if the token is still
/// current (no `advance()` since); the owner is notified with the lock
/// released, and only when the result was applied.
#pragma once

#include <atomic>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "antidrift/epoch.h"
#include "antidrift/executor.h"

namespace antidrift {

/// Where an asynchronous fetch stands.
enum class AsyncStatus {
  Idle,     ///< nothing requested (or reset)
  Pending,  ///< a request is in flight
  Ready,    ///< the value arrived
  Error,    ///< the request failed; error() says why
};

/// "idle" | "pending" | "ready" | "error". Pure; thread-safe.
constexpr std::string_view toString(AsyncStatus status) {
  switch (status) {
    case AsyncStatus::Idle:
      return "idle";
    case AsyncStatus::Pending:
      return "pending";
    case AsyncStatus::Ready:
      return "ready";
    case AsyncStatus::Error:
      return "error";
  }
  return "idle";
}

/// Runs `work` on `executor` and hands its result to `applyLocked` under
/// `mutex`, but only while `epoch` is still at `token` (docs/CONVENTIONS.md
/// "Concurrency": decide under the lock, launch off it, re-lock to apply only
/// if the generation matches, notify with the lock released).
///
/// - `work()` runs on an executor thread WITHOUT the mutex and returns some R.
///   If it throws, `applyLocked` receives std::nullopt instead of a value.
/// - Then `mutex` is locked; if `epoch.isCurrent(token)`,
///   `applyLocked(std::optional<R>&&)` runs under the lock and returns a
///   std::optional<S>: a value means "applied, tell the owner", and after
///   unlocking `notify(S)` is called with it. A stale result, or nullopt from
///   applyLocked, notifies nobody.
///
/// `mutex` is a std::mutex or any other BasicLockable (the Controller passes
/// its change lock, which takes two mutexes; issue 19 item 7, review L13).
/// Call it with or without `mutex` held (posting never runs the task inline).
/// `mutex`, `epoch` and everything the callables capture by reference must
/// outlive the task: drain/stop the executor before destroying the owner.
/// `applyLocked` and `notify` must not throw.
template <class Mutex, class Work, class ApplyLocked, class Notify>
void launchGuarded(Mutex& mutex, Executor& executor, const Epoch& epoch, std::uint64_t token,
                   Work work, ApplyLocked applyLocked, Notify notify) {
  struct Job {
    Work work;
    ApplyLocked applyLocked;
    Notify notify;
  };
  auto job = std::make_shared<Job>(Job{std::move(work), std::move(applyLocked), std::move(notify)});
  executor.post([&mutex, &epoch, token, job]() {
    using Result = std::decay_t<decltype(job->work())>;
    std::optional<Result> result;
    try {
      result.emplace(job->work());
    } catch (...) {
      result.reset();
    }
    using Applied = std::decay_t<decltype(job->applyLocked(std::move(result)))>;
    Applied applied;
    {
      std::lock_guard<Mutex> lock(mutex);
      if (!epoch.isCurrent(token)) return;
      applied = job->applyLocked(std::move(result));
    }
    if (applied) job->notify(std::move(*applied));
  });
}

/// Identifies one request of an AsyncSlot; stale once the slot is reset or
/// begun again.
struct AsyncToken {
  std::uint64_t generation = 0;  ///< the slot generation at begin()
};

/// The state of one generation-guarded fetch: status, value, error and a
/// generation counter. NOT synchronised: every method must be called with the
/// owner's mutex held (the same mutex given to launchGuarded).
template <class T>
class AsyncSlot {
 public:
  /// Starts a new request: status Pending, value and error cleared, generation
  /// bumped. Returns the token the result must carry; any older token is now
  /// stale.
  [[nodiscard]] AsyncToken begin() {
    epoch_.advance();
    status_ = AsyncStatus::Pending;
    value_.reset();
    error_.clear();
    return AsyncToken{epoch_.current()};
  }

  /// Back to Idle with value and error cleared; bumps the generation so any
  /// in-flight result is discarded when it arrives.
  void reset() {
    epoch_.advance();
    status_ = AsyncStatus::Idle;
    value_.reset();
    error_.clear();
  }

  /// Stores `value` (status Ready) if `token` is current and the slot is
  /// Pending; otherwise changes nothing and returns false.
  bool apply(AsyncToken token, T value) {
    if (!accepts(token)) return false;
    status_ = AsyncStatus::Ready;
    value_ = std::move(value);
    return true;
  }

  /// Records a failure with a short human `message` (status Error) if `token`
  /// is current and the slot is Pending; otherwise changes nothing and
  /// returns false.
  bool fail(AsyncToken token, std::string message) {
    if (!accepts(token)) return false;
    status_ = AsyncStatus::Error;
    error_ = std::move(message);
    return true;
  }

  /// True while `token` is the latest request and it has no result yet.
  bool accepts(AsyncToken token) const {
    return epoch_.isCurrent(token.generation) && status_ == AsyncStatus::Pending;
  }

  /// Where the fetch stands.
  AsyncStatus status() const { return status_; }
  /// The value; set only when status() is Ready.
  const std::optional<T>& value() const { return value_; }
  /// The failure message; non-empty only when status() is Error.
  const std::string& error() const { return error_; }
  /// Bumped by every begin() and reset().
  std::uint64_t generation() const { return epoch_.current(); }
  /// The slot's guard, for launchGuarded.
  const Epoch& epoch() const { return epoch_; }

 private:
  AsyncStatus status_ = AsyncStatus::Idle;
  std::optional<T> value_;
  std::string error_;
  Epoch epoch_;
};

namespace detail {

template <class R, class = void>
struct IsExpectedLike : std::false_type {};
template <class R>
struct IsExpectedLike<R, std::void_t<decltype(std::declval<const R&>().hasValue()),
                                     decltype(std::declval<R&&>().value()),
                                     decltype(std::declval<const R&>().error().message)>>
    : std::true_type {};

}  // namespace detail

/// True when R looks like ai::Expected (hasValue(), value(), error().message).
template <class R>
inline constexpr bool IsExpectedLikeV = detail::IsExpectedLike<R>::value;

/// Message stored in a slot when the work function throws.
inline constexpr std::string_view kAsyncWorkFailed = "internal error";

/// Runs `work` on `executor` and applies its result to `slot` if `token` is
/// still current (the launch dance of docs/CONVENTIONS.md "Concurrency").
///
/// - `work()` runs on an executor thread WITHOUT the mutex. It returns either
///   a T (always a success) or an Expected-like value with `hasValue()`,
///   `value()` and `error().message` (e.g. ai::Expected<T>); an error becomes
///   `slot.fail(token, message)`. If it throws, the slot fails with
///   kAsyncWorkFailed.
/// - Then `mutex` is locked and the result applied/failed; if (and only if)
///   that changed the slot, `afterApplyLocked()` runs still under the lock
///   (e.g. bump the state version and build the State to broadcast) and, after
///   unlocking, `notify(result of afterApplyLocked)` — or `notify()` when it
///   returns void. A stale result changes nothing and notifies nobody.
///
/// `mutex` as in the Epoch form above. Call it WITHOUT holding `mutex`, after `slot.begin()`
/// (posting under the lock is allowed too: posting never runs the task inline). `mutex`, `slot` and
/// everything the callables capture by reference must outlive the task: drain/stop the executor
/// before destroying the owner. Callables must be move-constructible; `afterApplyLocked` and
/// `notify` must not throw.
template <class Mutex, class T, class Work, class AfterApplyLocked, class Notify>
void launchGuarded(Mutex& mutex, Executor& executor, AsyncSlot<T>& slot, AsyncToken token,
                   Work work, AfterApplyLocked afterApplyLocked, Notify notify) {
  // The slot's outcome: a value, or an error message.
  struct Outcome {
    std::optional<T> value;
    std::string error;
  };
  auto outcomeOf = [work = std::move(work)]() mutable {
    using Result = std::decay_t<decltype(work())>;
    Outcome outcome;
    if constexpr (IsExpectedLikeV<Result>) {
      Result result = work();
      if (result.hasValue()) {
        outcome.value.emplace(std::move(result).value());
      } else {
        outcome.error = result.error().message;
      }
    } else {
      outcome.value.emplace(work());
    }
    return outcome;
  };
  using Snapshot = decltype(afterApplyLocked());
  constexpr bool kVoidSnapshot = std::is_void_v<Snapshot>;
  using Applied = std::conditional_t<kVoidSnapshot, bool, Snapshot>;
  auto applyLocked = [&slot, token, after = std::move(afterApplyLocked)](
                         std::optional<Outcome>&& outcome) mutable -> std::optional<Applied> {
    const bool applied = !outcome         ? slot.fail(token, std::string(kAsyncWorkFailed))
                         : outcome->value ? slot.apply(token, std::move(*outcome->value))
                                          : slot.fail(token, std::move(outcome->error));
    if (!applied) return std::nullopt;
    if constexpr (kVoidSnapshot) {
      after();
      return true;
    } else {
      return after();
    }
  };
  auto notifyApplied = [notify = std::move(notify)](Applied&& applied) mutable {
    if constexpr (kVoidSnapshot) {
      (void)applied;
      notify();
    } else {
      notify(std::move(applied));
    }
  };
  launchGuarded(mutex, executor, slot.epoch(), token.generation, std::move(outcomeOf),
                std::move(applyLocked), std::move(notifyApplied));
}

/// launchGuarded without an under-lock step: `notify()` is called (lock
/// released) once per applied result.
template <class Mutex, class T, class Work, class Notify>
void launchGuarded(Mutex& mutex, Executor& executor, AsyncSlot<T>& slot, AsyncToken token,
                   Work work, Notify notify) {
  launchGuarded(
      mutex, executor, slot, token, std::move(work), [] {}, std::move(notify));
}

}  // namespace antidrift

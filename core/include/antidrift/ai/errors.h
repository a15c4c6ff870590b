/// @file errors.h
/// Typed errors of the AI roles (docs/DESIGN.md §8, docs/CONVENTIONS.md "Errors"): an AI that
/// fails or answers garbage is a normal outcome, returned as a value the caller
/// must handle, never thrown.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace antidrift::ai {

/// Why an AI role produced no result.
enum class AiErrorKind {
  BackendFailed,      ///< Backend::complete threw BackendError (missing CLI, timeout, …)
  EmptyResponse,      ///< the backend answered only whitespace
  NoJson,             ///< the answer held no complete JSON object
  InvalidProposal,    ///< JSON found, but no object is a valid coach Proposal (seed 003)
  InvalidVerdict,     ///< JSON found, but no object is a valid drift Verdict (docs/DESIGN.md §4)
  InvalidReflection,  ///< JSON found, but no object is a valid Reflection (seed 004)
  AmbiguousVerdict,   ///< the answer holds valid drift Verdicts that disagree (issue 6)
  InvalidNudge,       ///< JSON found, but no object is a valid nudge answer (seed 000)
};

/// Stable snake_case name of `kind` ("backend_failed", "empty_response", "no_json",
/// "invalid_proposal", "invalid_verdict", "invalid_reflection",
/// "ambiguous_verdict", "invalid_nudge") for logs and tests. Pure; thread-safe.
std::string_view toString(AiErrorKind kind);

/// One AI failure. `message` is a short human sentence, safe to show in the
/// browser (it never contains raw CLI output).
struct AiError {
  AiErrorKind kind;     ///< what went wrong
  std::string message;  ///< short human sentence, browser-safe
};

/// A value of type T or an AiError; returned by every AI role and parser. The
/// type is [[nodiscard]]: ignoring a result is a compile error under -Werror.
/// A plain value type: copyable/movable as T is, not synchronised.
template <class T>
class [[nodiscard]] Expected {
 public:
  /// A success holding `value`.
  Expected(T value) : state_(std::in_place_index<0>, std::move(value)) {}  // NOLINT: implicit
  /// A failure holding `error`.
  Expected(AiError error) : state_(std::in_place_index<1>, std::move(error)) {}  // NOLINT

  /// True when a value is held.
  bool hasValue() const noexcept { return state_.index() == 0; }
  /// Same as hasValue().
  explicit operator bool() const noexcept { return hasValue(); }

  /// The value. Throws std::logic_error when an error is held (a caller bug).
  const T& value() const& {
    requireValue();
    return std::get<0>(state_);
  }
  /// The value. Throws std::logic_error when an error is held (a caller bug).
  T& value() & {
    requireValue();
    return std::get<0>(state_);
  }
  /// The value, moved out. Throws std::logic_error when an error is held.
  T&& value() && {
    requireValue();
    return std::get<0>(std::move(state_));
  }
  /// The error. Throws std::logic_error when a value is held (a caller bug).
  const AiError& error() const {
    if (hasValue()) throw std::logic_error("Expected::error() called on a value");
    return std::get<1>(state_);
  }

 private:
  void requireValue() const {
    if (!hasValue()) {
      throw std::logic_error("Expected::value() called on an error: " +
                             std::get<1>(state_).message);
    }
  }

  std::variant<T, AiError> state_;
};

}  // namespace antidrift::ai

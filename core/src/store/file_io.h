/// @file file_io.h
/// Private helpers of the file stores (docs/DESIGN.md §9): directory creation, durable
/// writes and whole-file reads. Poco has no fsync, so the durable paths use
/// POSIX open/write/fsync directly; everything else goes through Poco::File.
#pragma once

#include <cstdint>
#include <string>

namespace antidrift::fileio {

/// Creates `directory` (and missing parents) if absent; the directory itself
/// is created with mode 0700 (docs/DESIGN.md §9: the data directory is private).
/// Throws std::runtime_error naming the path on failure. Thread-safe.
void ensureDirectory(const std::string& directory);

/// Whether `path` exists (Poco::File::exists). Throws std::runtime_error
/// naming the path when that cannot be determined.
bool exists(const std::string& path);

/// fsyncs `directory` so a rename or create inside it is durable. Throws
/// std::runtime_error naming the path on failure. Thread-safe.
void syncDirectory(const std::string& directory);

/// Writes all of `data` to the open descriptor `fd`, retrying short writes
/// and EINTR. Throws std::runtime_error naming `path` on failure.
void writeAll(int fd, const std::string& data, const std::string& path);

/// Creates the new file `path` (O_EXCL, `mode`), writes `data`, fsyncs and
/// closes it. The file is removed again if any step fails. Throws
/// std::runtime_error naming the path on failure (including when it exists).
void writeNewFileDurably(const std::string& path, const std::string& data, unsigned mode);

/// Replaces `path` (in `directory`) with `data` atomically and durably: a
/// new temp file `path` + `tempInfix` + pid + "-" + counter written with
/// writeNewFileDurably (`mode`), renamed over `path`, then the directory
/// fsynced — a crash leaves the old file or the new one, never half of
/// either (the snapshot's and the verdict memory's write, docs/DESIGN.md §9).
/// Creates `directory` when missing. Throws std::runtime_error naming the
/// path; the temp file is removed when the rename fails. Thread-safe.
void replaceFileDurably(const std::string& directory, const std::string& path,
                        const std::string& tempInfix, const std::string& data, unsigned mode);

/// Opens the store file `path` with `flags` | O_NOFOLLOW | O_CLOEXEC (and
/// `mode` when creating), never through a symbolic link, and checks that it
/// is a regular file owned by this user (issue 19 item 6, review L1). A file
/// whose mode allows group or other access is tightened to 0600 (fchmod).
/// Returns the descriptor (the caller closes it). Throws std::runtime_error
/// naming the path: "... is a symbolic link; store files are never followed",
/// not a regular file, owned by another uid, or any open/stat error (errno
/// is kept, so ENOENT can be told apart). Thread-safe.
int openStoreFile(const std::string& path, int flags, unsigned mode = 0600);

/// Whether `path` exists, without following a final symbolic link (lstat).
/// Throws std::runtime_error naming the path when that cannot be determined.
bool existsNoFollow(const std::string& path);

/// The whole content of `path` as bytes, opened with openStoreFile (no
/// symbolic link, regular, ours, tightened to 0600). Throws std::runtime_error naming the
/// path when it cannot be opened or read.
std::string readFile(const std::string& path);

/// "cannot <operation> <path>: <strerror(errno)>" for the current errno.
std::string systemError(const std::string& operation, const std::string& path);

/// Wall-clock now, UTC ms (Poco::Timestamp). Used only to name files.
std::int64_t nowUtcMs();

}  // namespace antidrift::fileio

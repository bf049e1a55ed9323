#pragma once
/// \file
/// Safety checks on perf.data files shared by the commands that read and write them
/// (docs/reliability.md): perf's owner rule for inputs, and replacing an output's
/// `.old` backup without following symlinks.

#include <string>

#include "perfx/error.hpp"

namespace perfx::record {

/// perf's rule for reading a recording: the file must be owned by the caller's
/// effective uid or by root, unless `force` (perf report/script `-f/--force`). A file
/// written by another user could be crafted to exploit the reader, and perf refuses it
/// the same way. "-" (stdin) and pipes/FIFOs/character devices are not checked.
/// Errors: kPermission "perf.data: file not owned by current user (uid 0) or root (owner
/// uid 65534); use --force to read it anyway"; kNotFound/kIo when it cannot be stat'ed
/// (the message names the path).
[[nodiscard]] Result<void> check_input_owner(const std::string& path, bool force);

/// Before writing a new recording to `path`: when `path` exists (a file, or a symlink,
/// which is never followed), renames it to `path + ".old"`, replacing whatever
/// `.old` was -- rename(2) replaces a symlink itself, never the file it points to, and a
/// directory `.old` is refused rather than deleted. Nothing to do when `path` is absent
/// or "-". Errors: kIo/kPermission naming both paths.
[[nodiscard]] Result<void> rotate_old_output(const std::string& path);

}  // namespace perfx::record

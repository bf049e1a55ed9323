#pragma once
/// \file
/// Safety checks on perf.data files shared by the commands that read and write them
/// (docs/reliability.md): perf's owner rule for inputs. (Outputs are created by
/// perfx::OutputFile, include/perfx/output_file.hpp.)

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

}  // namespace perfx::record

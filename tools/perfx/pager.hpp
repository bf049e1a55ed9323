#pragma once
// perf's pager habit: the long text output of report, script, annotate, list, ... goes
// through a pager when stdout is a terminal, never when it is piped or redirected.
// The pager is $PERFX_PAGER, else $PERF_PAGER, else $PAGER, else `less -FRX` (with
// LESS=FRX set when unset, as perf does); "" or "cat" means none. `perfx --no-pager`
// (or -P) turns it off.

namespace perfx::cli {

/// Starts the pager when stdout is a terminal and a pager is configured: stdout (and
/// stderr, when it is the terminal too) then write into it. The pager process starts
/// reading only once there is output, and finish_pager() waits for it.
void start_pager();

/// Flushes and closes the output into the pager and waits until the user leaves it.
/// Runs at exit too; a no-op without a pager.
void finish_pager();

/// Whether the user's output is a terminal: stdout is one, or a pager runs on one.
bool stdout_is_terminal();

}  // namespace perfx::cli

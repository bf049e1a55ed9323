#!/bin/bash
# perfx probe on this machine: a uprobe defined by function name counts exactly the calls a
# fixture makes (perfx stat -e probe_<prog>:<func>), so does its %return probe; names are
# perf's; -l lists, -d removes (globs), duplicates are refused unless -f; DWARF gives
# SRC:LINE addresses and fetch arguments, checked against `perf probe -D` where perf is
# installed; kprobes are refused with the kernel's reason (this kernel has no kprobes:
# their creation is tested on a fake tracefs in tests/unit/api/probe_api_test.cpp).
set -u
source "$(dirname "$0")/common.bash"
: "${BUILD_DIR:=build}"
fixture="$BUILD_DIR/fixtures/uprobe_calls"
[ -x "$fixture" ] || { echo "no fixture $fixture"; exit 77; }
fixture=$(realpath "$fixture")
tracefs=/sys/kernel/tracing
[ -w "$tracefs/uprobe_events" ] || { echo "skip: $tracefs/uprobe_events is not writable (root and tracefs needed)"; exit 77; }
group=probe_uprobe_calls
cleanup() { "$PERFX" probe -q -d "$group:*" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
"$PERFX" probe -q -d "$group:*" 2>/dev/null

check "add by function name: perf's group and event name" \
  '"$PERFX" probe -x "$fixture" uprobe_target 2>"$tmp/add.err" && grep -q "^  $group:uprobe_target .*(on uprobe_target in $fixture)" "$tmp/add.err" || { cat "$tmp/add.err"; false; }'
check "the definition is in uprobe_events" 'grep -q "^p:$group/uprobe_target $fixture:0x" $tracefs/uprobe_events'
check "-l lists it" '"$PERFX" probe -l | grep -q "^  $group:uprobe_target "'
check "stat counts exactly the calls (37)" \
  '"$PERFX" stat -x, -e $group:uprobe_target -- "$fixture" 37 2>"$tmp/stat" >/dev/null; grep -q "^37,,$group:uprobe_target," "$tmp/stat" || { cat "$tmp/stat"; false; }'
check "stat counts exactly the calls (1000)" \
  '"$PERFX" stat -x, -e $group:uprobe_target -- "$fixture" 1000 2>"$tmp/stat" >/dev/null; grep -q "^1000,,$group:uprobe_target," "$tmp/stat"'
check "a second add of the name is refused" \
  '! "$PERFX" probe -x "$fixture" uprobe_target 2>"$tmp/dup" && grep -q "already exists" "$tmp/dup"'
check "-f adds it as <name>_1" \
  '"$PERFX" probe -f -x "$fixture" uprobe_target 2>/dev/null && "$PERFX" probe -l | grep -q "^  $group:uprobe_target_1 "'
check "%return probe counts the returns" \
  '"$PERFX" probe -q -x "$fixture" "uprobe_target%return \$retval" && "$PERFX" stat -x, -e $group:uprobe_target__return -- "$fixture" 25 2>"$tmp/stat" >/dev/null; grep -q "^25,,$group:uprobe_target__return," "$tmp/stat" || { cat "$tmp/stat"; false; }'
# (optimized code: in its register at the entry; unoptimized: in its stack slot after the
# prologue; record + script below check the values read.)
check "a DWARF argument: the parameter in its register or stack slot" \
  '"$PERFX" probe -q -x "$fixture" "arg=uprobe_target i" && grep -Eq "^p:$group/arg $fixture:0x[0-9a-f]* i=(%di|-[0-9]+\(%bp\)):x64$" $tracefs/uprobe_events'
check "record + script show the argument's values" \
  '"$PERFX" record -q -o "$tmp/perf.data" -e $group:arg -- "$fixture" 3 2>/dev/null && "$PERFX" script -i "$tmp/perf.data" > "$tmp/script" 2>&1 && [ "$(grep -c "$group:arg:.*i=" "$tmp/script")" = 3 ] && grep -q "i=0x2$" "$tmp/script" || { cat "$tmp/script"; false; }'
src_line=$(grep -n "uprobe_sink += i" "$SOURCE_DIR/tests/fixtures/uprobe_calls.c" | cut -d: -f1)
check "SRC:LINE through the line table, named after its function" \
  '"$PERFX" probe -q -x "$fixture" "line=uprobe_calls.c:$src_line" && "$PERFX" stat -x, -e $group:line -- "$fixture" 12 2>"$tmp/stat" >/dev/null; grep -q "^12,,$group:line," "$tmp/stat" || { cat "$tmp/stat"; false; }'
check "-D prints the definition and defines nothing" \
  '[ "$("$PERFX" probe -x "$fixture" -D "uprobe_calls.c:$src_line")" = "$(grep "^p:$group/line " $tracefs/uprobe_events | sed "s/^p:$group\/line/p:$group\/uprobe_target/; s/0x0*\([0-9a-f]\)/0x\1/")" ]'
if command -v perf >/dev/null; then
  # Unoptimized units (gcc -O0, clang: its DWARF 5 location lists do not count for perf
  # 6.1) move argument probes past the prologue, as perf; clang's pointer types have no
  # size, so perf and perfx give argv no type (docs/probe.md).
  for def in uprobe_target "uprobe_target%return \$retval" "uprobe_target i" "v=uprobe_target i" \
    "main argc argv"; do
    check "-D as perf probe -D: $def" \
      '[ "$("$PERFX" probe -x "$fixture" -D "$def")" = "$(perf probe -x "$fixture" -D "$def" 2>/dev/null | head -1)" ] || { "$PERFX" probe -x "$fixture" -D "$def"; perf probe -x "$fixture" -D "$def"; false; }'
  done
  # SRC:LINE: perf 6.1 refuses a line sharing its address with another (the body's first
  # line of an optimized function is its entry, the declaration's line), where perfx
  # probes it, and probes each row of a line with several, where perfx probes the first;
  # compared where perf takes the line and gives one definition.
  for def in "uprobe_calls.c:$src_line" "uprobe_calls.c:$src_line i"; do
    if ! perf_def=$(perf probe -x "$fixture" -D "$def" 2>/dev/null); then
      echo "skip: -D as perf probe -D: $def: perf refuses the line (it shares its address)"
    elif [ "$(printf '%s\n' "$perf_def" | wc -l)" != 1 ]; then
      echo "skip: -D as perf probe -D: $def: perf probes each of the line's rows"
    else
      check "-D as perf probe -D: $def" '[ "$("$PERFX" probe -x "$fixture" -D "$def")" = "$perf_def" ] || { "$PERFX" probe -x "$fixture" -D "$def"; echo "$perf_def"; false; }'
    fi
  done
fi
check "-d with a glob removes them all" \
  '"$PERFX" probe -d "$group:*" 2>"$tmp/del" && grep -q "Removed event: $group:uprobe_target$" "$tmp/del" && ! grep -q "$group" $tracefs/uprobe_events'
check "the event is gone for stat" '! "$PERFX" stat -e $group:uprobe_target -- true 2>/dev/null'
check "-d of nothing fails, named" '! "$PERFX" probe -d "$group:nothing" 2>"$tmp/e" && grep -q "nothing" "$tmp/e"'
check "an unknown function is named" '! "$PERFX" probe -x "$fixture" no_such_func 2>"$tmp/e" && grep -q "no_such_func" "$tmp/e"'
check "a missing binary is named" '! "$PERFX" probe -x /no/such/prog main 2>"$tmp/e" && grep -q "/no/such/prog" "$tmp/e"'
check "bad syntax is a usage error" '"$PERFX" probe -x "$fixture" "f%entry" 2>"$tmp/e"; [ $? = 1 ] && grep -q "%return" "$tmp/e"'
if [ -e $tracefs/kprobe_events ]; then
  check "kprobe on vfs_read" '"$PERFX" probe -q vfs_read && "$PERFX" probe -q -d probe:vfs_read'
else
  echo "skip: kprobe live check: this kernel has no kprobes ($tracefs/kprobe_events missing, CONFIG_KPROBES unset)"
  check "a kprobe is refused with the kernel's reason" \
    '! "$PERFX" probe vfs_read 2>"$tmp/e" && grep -q "CONFIG_KPROBE" "$tmp/e"'
fi
exit $fail

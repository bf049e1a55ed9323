# bash completion for perfx: subcommands, each command's options, event names after
# -e/--event (from `perfx list`) and report's sort keys after -s/--sort. Everything is
# read from perfx itself (its --help text and `perfx list`), so it never goes stale.
# Installed by `cmake --install` as share/bash-completion/completions/perfx.

_perfx_commands() {
  "$1" --help 2>/dev/null | awk '/^commands:/ { f = 1; next } f && /^   [a-z]/ { print $1 }'
}

_perfx_options() {
  "$1" "$2" --help 2>/dev/null | grep -oE '(^|[ ,])--?[A-Za-z0-9][A-Za-z0-9-]*' | tr -d ' ,' |
    sort -u
}

_perfx_events() {
  # `perfx list`: "  name OR alias ...   [kind] [status]" per event (descriptions are
  # indented deeper); --no-probe skips opening each one.
  "$1" list --no-probe 2>/dev/null |
    awk '/^  [^ ]/ { for (i = 1; i <= NF && $i !~ /^\[/; i++) if ($i != "OR") print $i }'
}

_perfx_sort_keys() {
  "$1" report --help 2>/dev/null | sed -n 's/.*sort keys: *\([a-z0-9_,-]*\).*/\1/p' | tr ',' ' '
}

_perfx() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
  local perfx=${COMP_WORDS[0]} cmd="" i
  for ((i = 1; i < COMP_CWORD; i++)); do
    case ${COMP_WORDS[i]} in
      -*) ;;
      *) cmd=${COMP_WORDS[i]}; break ;;
    esac
  done
  COMPREPLY=()
  if [[ -z $cmd ]]; then
    if [[ $cur == -* ]]; then
      mapfile -t COMPREPLY < <(compgen -W "--help --version --no-pager" -- "$cur")
    else
      mapfile -t COMPREPLY < <(compgen -W "$(_perfx_commands "$perfx")" -- "$cur")
    fi
    return 0
  fi
  case $prev in
    -e | --event)
      mapfile -t COMPREPLY < <(compgen -W "$(_perfx_events "$perfx")" -- "$cur")
      return 0
      ;;
    -s | --sort)
      if [[ $cmd == report || $cmd == diff || $cmd == top ]]; then
        # a comma-separated list: complete its last key
        local done_keys=${cur%"${cur##*,}"}
        mapfile -t COMPREPLY < <(compgen -P "$done_keys" -W "$(_perfx_sort_keys "$perfx")" \
          -- "${cur##*,}")
        return 0
      fi
      ;;
  esac
  if [[ $cur == -* ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$(_perfx_options "$perfx" "$cmd")" -- "$cur")
  else
    mapfile -t COMPREPLY < <(compgen -f -- "$cur")
  fi
  return 0
}

complete -F _perfx perfx

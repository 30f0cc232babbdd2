# bash completion for gpufx: commands, each command's options and their choices, file
# names elsewhere.  The words come from gpufx itself (--complete-words, cli/options.c), so
# they are the ones its parameter tables declare.  scripts/install.sh installs this file
# where bash-completion looks for it.
_gpufx () {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]} words line
  COMPREPLY=()
  if [ "$COMP_CWORD" -eq 1 ]; then
    words=$("${COMP_WORDS[0]}" --complete-words 2>/dev/null)
    mapfile -t COMPREPLY < <(compgen -W "$words" -- "$cur")
    return
  fi
  if [[ ${COMP_WORDS[1]} =~ ^(help|--help|-h)$ ]]; then   # help CMD, and nothing after it
    [ "$COMP_CWORD" -eq 2 ] || return
    words=$("${COMP_WORDS[0]}" --complete-words 2>/dev/null | grep -v '^-')
    mapfile -t COMPREPLY < <(compgen -W "$words" -- "$cur")
    return
  fi
  [[ ${COMP_WORDS[1]} == -* ]] && return   # --version takes nothing, --help one command
  # Lines "--name [choices | :file | :value]"; a command without them (bench) gives none.
  words=$("${COMP_WORDS[0]}" "${COMP_WORDS[1]}" --complete-words 2>/dev/null | grep -- '^--')
  # "--kernel=s": bash splits the word at '=' (COMP_WORDBREAKS).
  if [ "$prev" = "=" ] && [ "$COMP_CWORD" -ge 3 ]; then prev=${COMP_WORDS[COMP_CWORD - 2]}; fi
  [ "$cur" = "=" ] && cur=
  # The word after an option that takes a value: its choices, a file, or nothing to offer.
  line=$(grep -m1 -- "^$prev " <<<"$words")
  case ${line#* } in
    '') ;;
    :file) mapfile -t COMPREPLY < <(compgen -f -- "$cur"); return ;;
    :value) return ;;
    *) mapfile -t COMPREPLY < <(compgen -W "${line#* }" -- "$cur"); return ;;
  esac
  if [[ $cur == -* ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$(cut -d' ' -f1 <<<"$words")" -- "$cur")
  else
    mapfile -t COMPREPLY < <(compgen -f -- "$cur")
  fi
}
complete -o filenames -F _gpufx gpufx

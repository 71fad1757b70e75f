# Press TAB after a command line in a real interactive zsh (on a pseudo-terminal, zsh/zpty)
# with a completion script loaded; prints what zsh shows. Arguments: SCRIPT BIN LINE UNTIL:
# reading stops once UNTIL has been shown (or after 30 s: a loaded machine is slow, not wrong).
zmodload zsh/zpty
zpty z zsh -f -i
zpty -w z "PS1=''; autoload -U compinit; compinit -u -d \$PWD/zcd"
zpty -w z "source $1"
zpty -w z "zstyle ':completion:*' list-prompt ''; zstyle ':completion:*' menu no; setopt nobeep; LISTMAX=1000; path=($2 \$path)"
zpty -n -w z "$3"$'\t'
out=''
end=$(( SECONDS + 30 ))
while (( SECONDS < end )); do
  if zpty -r -t z chunk; then
    out+=$chunk
    [[ $out == *"$4"* ]] && break
  else
    sleep 0.1
  fi
done
sleep 0.3
while zpty -r -t z chunk; do out+=$chunk; done
print -r -- "$out"
zpty -d z

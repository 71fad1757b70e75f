# Press TAB after a command line in a real interactive zsh (on a pseudo-terminal, zsh/zpty)
# with a completion script loaded; prints what zsh shows. Arguments: SCRIPT BIN LINE.
zmodload zsh/zpty
zpty z zsh -f -i
zpty -w z "PS1=''; autoload -U compinit; compinit -u -d \$PWD/zcd"
zpty -w z "source $1"
zpty -w z "zstyle ':completion:*' list-prompt ''; zstyle ':completion:*' menu no; setopt nobeep; LISTMAX=1000; path=($2 \$path)"
zpty -w z "print READY"
out=''
while zpty -r -t z chunk; do out+=$chunk; [[ $out == *READY*READY* ]] && break; done
zpty -n -w z "$3"$'\t'
sleep 2
out=''
while zpty -r -t z chunk; do out+=$chunk; done
print -r -- "$out"
zpty -d z

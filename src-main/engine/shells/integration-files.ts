import fs from 'node:fs';
import path from 'node:path';
import { ensureExactFile, ensureOwnDir } from '../core/fs-safe';

/**
 * The start-up files that give bash and zsh their prompt marks (shell-integration.ts decides who gets them).
 * Each runs the user's own start-up files first, exactly as the shell would have, and only then adds hooks, so
 * the user's prompt, aliases and PROMPT_COMMAND keep working. The nonce comes in the environment and is
 * removed from it at once (child processes never see it); the hooks keep it in an unexported variable.
 */
/** A shell script as written (no JS escapes), where `@{` stands for the shell's `${` (JS would read `${`). */
function script(strings: TemplateStringsArray, ...values: string[]): string {
  return String.raw({ raw: strings.raw }, ...values).replaceAll('@{', '${');
}

const BASH_INIT = script`# Commonroom shell integration for bash (OSC 133 prompt marks). Started with --init-file.
if [ -n "$COMMONROOM_BASH_LOGIN" ]; then
  [ -r /etc/profile ] && . /etc/profile
  for __cr_f in ~/.bash_profile ~/.bash_login ~/.profile; do
    if [ -r "$__cr_f" ]; then . "$__cr_f"; break; fi
  done
else
  # (Debian's bash has read /etc/bash.bashrc already; elsewhere ~/.bashrc reads the system file itself)
  [ -r ~/.bashrc ] && . ~/.bashrc
fi
unset COMMONROOM_BASH_LOGIN __cr_f
__cr_nonce=$COMMONROOM_MARK_NONCE
unset COMMONROOM_MARK_NONCE
if [ -n "$__cr_nonce" ]; then
  __cr_precmd() {
    local s=$?
    printf '\033]133;D;%s;cr=%s\007' "$s" "$__cr_nonce"
    return $s
  }
  # last in PROMPT_COMMAND: a prompt theme may have rebuilt PS1 meanwhile
  __cr_postcmd() {
    local s=$?
    case "$PS1" in
      *"133;A;cr=$__cr_nonce"*) ;;
      *) PS1="\[\033]133;A;cr=$__cr_nonce\007\]$PS1\[\033]133;B;cr=$__cr_nonce\007\]" ;;
    esac
    __cr_at_prompt=1
    return $s
  }
  # the user's PROMPT_COMMAND goes between them without the separators at its ends (pyenv-virtualenv's ends
  # in ";", and "a;; b" is a syntax error that would stop every prompt hook)
  __cr_pc=$PROMPT_COMMAND
  while :; do case "$__cr_pc" in *';'|*' '|*$'\n'|*$'\t') __cr_pc=@{__cr_pc%?} ;; *) break ;; esac; done
  while :; do case "$__cr_pc" in ';'*|' '*|$'\n'*|$'\t'*) __cr_pc=@{__cr_pc#?} ;; *) break ;; esac; done
  PROMPT_COMMAND="__cr_precmd@{__cr_pc:+; $__cr_pc}; __cr_postcmd"
  unset __cr_pc
  if [ "@{BASH_VERSINFO[0]}" -gt 4 ] || { [ "@{BASH_VERSINFO[0]}" -eq 4 ] && [ "@{BASH_VERSINFO[1]}" -ge 4 ]; }; then
    PS0="@{PS0}\033]133;C;cr=$__cr_nonce\007"
  else
    # bash before 4.4 (macOS's 3.2) has no PS0: the first DEBUG trap after a prompt marks the command's start
    __cr_preexec() {
      [ -n "$__cr_at_prompt" ] || return 0
      case "$BASH_COMMAND" in __cr_precmd*) return 0 ;; esac
      __cr_at_prompt=
      printf '\033]133;C;cr=%s\007' "$__cr_nonce"
    }
    trap '__cr_preexec' DEBUG
  fi
fi
`;

/** zsh: our ZDOTDIR's files source the user's (from their ZDOTDIR or HOME), then hand ZDOTDIR back. */
const ZSH_PASS_THROUGH = (file: string) => script`# Commonroom shell integration for zsh: run the user's ${file}, then come back for the next file.
__cr_dir=$ZDOTDIR
if [[ -n $COMMONROOM_USER_ZDOTDIR ]]; then ZDOTDIR=$COMMONROOM_USER_ZDOTDIR; else unset ZDOTDIR; fi
[[ -r @{ZDOTDIR:-$HOME}/${file} ]] && source @{ZDOTDIR:-$HOME}/${file}
[[ -n $ZDOTDIR ]] && COMMONROOM_USER_ZDOTDIR=$ZDOTDIR
ZDOTDIR=$__cr_dir
unset __cr_dir
`;

const ZSH_RC = script`# Commonroom shell integration for zsh (OSC 133 prompt marks): the user's .zshrc, then the hooks.
if [[ -n $COMMONROOM_USER_ZDOTDIR ]]; then export ZDOTDIR=$COMMONROOM_USER_ZDOTDIR; else unset ZDOTDIR; fi
unset COMMONROOM_USER_ZDOTDIR
[[ -r @{ZDOTDIR:-$HOME}/.zshrc ]] && source @{ZDOTDIR:-$HOME}/.zshrc
__cr_nonce=$COMMONROOM_MARK_NONCE
unset COMMONROOM_MARK_NONCE
if [[ -n $__cr_nonce ]]; then
  __cr_precmd() {
    local s=$?
    printf '\033]133;D;%s;cr=%s\007' $s $__cr_nonce
    return $s
  }
  __cr_prompt() {
    [[ $PS1 == *"133;A;cr=$__cr_nonce"* ]] || PS1="%{"$'\e'"]133;A;cr=$__cr_nonce"$'\a'"%}$PS1%{"$'\e'"]133;B;cr=$__cr_nonce"$'\a'"%}"
  }
  __cr_preexec() { printf '\033]133;C;cr=%s\007' $__cr_nonce; }
  # the status mark first (it needs the command's $?), the prompt marks last (after any theme rebuilt PS1)
  precmd_functions=(__cr_precmd $precmd_functions __cr_prompt)
  preexec_functions=($preexec_functions __cr_preexec)
fi
`;

/** Every start-up file, by its path in the folder. */
const FILES: Record<string, string> = {
  'bash-init.sh': BASH_INIT,
  'zsh/.zshenv': ZSH_PASS_THROUGH('.zshenv'),
  'zsh/.zprofile': ZSH_PASS_THROUGH('.zprofile'),
  'zsh/.zshrc': ZSH_RC,
};

/** What zsh reads from its ZDOTDIR at start and end: these files, and each one's compiled `.zwc`. */
const ZSH_READS = /^\.z(shenv|profile|shrc|login|logout)(\.zwc)?$/;

/**
 * Makes `dir` hold exactly the start-up files (0700 folders, 0600 files) and returns `dir`. Run before every
 * shell, since each sources them as the person: a file that is not the room's own (swapped, a symlink, a
 * folder, another mode) is replaced atomically and never followed (fs-safe's `ensureExactFile`), and any
 * other start-up file zsh would read from zsh/ is removed (a planted `.zlogin`, or a `.zshrc.zwc` zsh takes in
 * place of `.zshrc`); anything else there (a history file a system zshrc pointed at $ZDOTDIR) is left alone.
 * Cheap when nothing changed: an lstat and a read of each small file.
 */
export function writeIntegrationFiles(dir: string): string {
  ensureOwnDir(dir);
  const zsh = path.join(dir, 'zsh');
  ensureOwnDir(zsh);
  for (const [name, text] of Object.entries(FILES)) ensureExactFile(path.join(dir, name), text);
  for (const entry of fs.readdirSync(zsh)) {
    if (ZSH_READS.test(entry) && !(`zsh/${entry}` in FILES)) fs.rmSync(path.join(zsh, entry), { recursive: true, force: true });
  }
  return dir;
}

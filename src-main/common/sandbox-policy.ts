/**
 * Where an agent's shells and graph stages may write, as data: the way the agent tools people use do it
 * (Codex's workspace-write, Claude Code's sandbox). The working folder (a shell's or stage's cwd: a handoff's
 * worktree or the folder the agent was started in) and the places below are writable; the rest of the file
 * system is read-only, and so are the person's start-up files and each repository's own configuration and
 * hooks, even inside a writable folder. The person widens one agent's places through the sandbox's
 * `extraWritable(owner)` hook (process/agent-sandbox.ts).
 */

/** Temp folders every agent may write (absolute; the room's own TMPDIR is added to them). */
export const SANDBOX_TEMP_FOLDERS = ['/tmp', '/var/tmp', '/dev/shm'] as const;

/**
 * The usual tool caches, relative to the home folder (XDG_CACHE_HOME is added when set). Package managers
 * and build tools fill these whatever folder they build in; without them `npm install` or `cargo build` fail.
 */
export const SANDBOX_CACHE_FOLDERS = [
  '.cache',
  '.npm',
  '.pnpm-store',
  '.local/share/pnpm',
  '.yarn',
  '.bun/install/cache',
  '.cargo/registry',
  '.cargo/git',
  'go/pkg/mod',
  '.gradle/caches',
  '.m2/repository',
  '.node-gyp',
] as const;

/**
 * The agent clients' own state, relative to the home folder: their sign-in, settings, sessions and history.
 * A client started by `ce agent start` runs in the sandbox and writes these as it runs.
 */
export const SANDBOX_AGENT_STATE = [
  '.claude',
  '.claude.json',
  '.local/state/claude',
  '.local/share/claude',
  '.codex',
  '.gemini',
  '.config/opencode',
  '.local/share/opencode',
  '.local/state/opencode',
] as const;

/** Of the places above, those made when missing (every tool expects to create them; they hold no settings). */
export const SANDBOX_MADE_WHEN_MISSING = ['.cache', '.npm'] as const;

/**
 * What the person's own shells, git, ssh, desktop session and PATH read or run, relative to the home folder:
 * read-only even where a writable folder holds them (an agent started in the home folder), and not creatable
 * where missing. A line an agent appended to `.bashrc` would run as the person in their next own shell.
 */
export const SANDBOX_READ_ONLY_HOME = [
  '.bashrc',
  '.bash_profile',
  '.bash_login',
  '.bash_logout',
  '.profile',
  '.zshrc',
  '.zshenv',
  '.zprofile',
  '.zlogin',
  '.zlogout',
  '.config/fish',
  '.inputrc',
  '.gitconfig',
  '.config/git',
  '.ssh',
  '.gnupg',
  '.npmrc',
  '.yarnrc',
  '.yarnrc.yml',
  '.tmux.conf',
  '.config/tmux',
  '.vimrc',
  '.config/nvim',
  '.emacs',
  '.emacs.d',
  '.config/autostart',
  '.config/systemd',
  '.config/environment.d',
  '.pam_environment',
  '.xprofile',
  '.xsessionrc',
  '.local/bin',
  'bin',
] as const;

/**
 * In a repository's common git folder (and each worktree's own), what git reads as configuration or runs:
 * read-only while its objects, refs and logs stay writable, so commits work and hooks, fsmonitor, filters and
 * aliases cannot be planted for the person's next git command.
 */
export const GIT_READ_ONLY = ['config', 'config.worktree', 'hooks', 'info'] as const;

/** The default write policy in a sentence, for the banner, room_info and the Agents screen. */
export const SANDBOX_WRITE_POLICY =
  "they write only their working folder, temp folders, tool caches (~/.cache, ~/.npm, …) and their own client state (~/.claude, ~/.codex, …); the rest is read-only, and so are your start-up files (~/.bashrc, ~/.gitconfig, …) and each repository's .git/config and hooks";

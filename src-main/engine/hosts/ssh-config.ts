import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * The person's SSH configuration, read for its host aliases only: the room never copies an address, a user or
 * a key out of it — ssh reads the file itself each time it connects. COMMONROOM_SSH_CONFIG names another file
 * (passed to ssh as -F); otherwise it is the file ssh reads by default, ~/.ssh/config of the account (ssh looks
 * at the account's home, not $HOME).
 */
export interface SshConfigFile {
  path: string;
  /** Given explicitly: every ssh the room runs gets `-F path`. */
  explicit: boolean;
}

function accountHome(): string {
  try {
    return os.userInfo().homedir;
  } catch {
    return os.homedir();
  }
}

export function sshConfigFile(env: NodeJS.ProcessEnv = process.env): SshConfigFile {
  const given = env.COMMONROOM_SSH_CONFIG;
  if (given) return { path: path.resolve(given), explicit: true };
  return { path: path.join(accountHome(), '.ssh', 'config'), explicit: false };
}

const MAX_INCLUDE_DEPTH = 8;
const MAX_CONFIG_BYTES = 1 << 20;

/** The words of a config line ("Host a b", "Host=a", quoted words), its keyword lower-cased. */
function wordsOf(line: string): { keyword: string; args: string[] } | null {
  const trimmed = line.trim();
  if (trimmed === '' || trimmed.startsWith('#')) return null;
  const m = /^(\S+?)(?:\s*=\s*|\s+)(.*)$/.exec(trimmed);
  if (!m) return { keyword: trimmed.toLowerCase(), args: [] };
  const args: string[] = [];
  for (const w of (m[2] as string).matchAll(/"([^"]*)"|(\S+)/g)) args.push(w[1] ?? (w[2] as string));
  return { keyword: (m[1] as string).toLowerCase(), args };
}

/** The files an Include names: relative to ~/.ssh, with * and ? in the last part of the path. */
function includedFiles(pattern: string, sshDir: string): string[] {
  const expanded = pattern.startsWith('~/') ? path.join(accountHome(), pattern.slice(2)) : pattern;
  const full = path.isAbsolute(expanded) ? expanded : path.join(sshDir, expanded);
  const base = path.basename(full);
  if (!/[*?]/.test(base)) return [full];
  const re = new RegExp(`^${base.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`);
  try {
    return fs.readdirSync(path.dirname(full)).filter((n) => re.test(n)).sort().map((n) => path.join(path.dirname(full), n));
  } catch {
    return [];
  }
}

/**
 * The aliases a person can name: every `Host` word without a pattern character (`*`, `?`, `!`), in the file
 * and the files it includes, in the order ssh reads them. A file that cannot be read adds nothing.
 */
export function sshAliases(config: SshConfigFile): string[] {
  const seen = new Set<string>();
  // relative Includes of a user configuration (-F files too) are relative to ~/.ssh, as ssh reads them
  const sshDir = path.join(accountHome(), '.ssh');
  const read = (file: string, depth: number) => {
    if (depth > MAX_INCLUDE_DEPTH) return;
    let text: string;
    try {
      if (fs.statSync(file).size > MAX_CONFIG_BYTES) return;
      text = fs.readFileSync(file, 'utf8');
    } catch {
      return;
    }
    for (const line of text.split(/\r?\n/)) {
      const words = wordsOf(line);
      if (!words) continue;
      if (words.keyword === 'host') {
        for (const a of words.args) if (!/[*?!]/.test(a) && /^[A-Za-z0-9_][A-Za-z0-9._@-]*$/.test(a)) seen.add(a);
      } else if (words.keyword === 'include') {
        for (const pattern of words.args) for (const f of includedFiles(pattern, sshDir)) read(f, depth + 1);
      }
    }
  };
  read(config.path, 0);
  return [...seen];
}

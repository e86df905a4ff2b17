import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { electronNativeDir, selectSqliteBinding, type BindingInputs } from '../../../src-main/engine/store/native-binding';

const root = '/opt/commonroom';
const built = path.join(electronNativeDir(root, '45.5.0', 'linux', 'x64'), 'better_sqlite3.node');
const inputs = (over: Partial<BindingInputs>, files: string[] = []): BindingInputs => ({
  versions: {},
  platform: 'linux',
  arch: 'x64',
  env: {},
  root,
  exists: (f) => files.includes(f),
  ...over,
});

describe('which better-sqlite3 build loads', () => {
  it('plain Node uses the package\'s own build, even when an Electron build exists', () => {
    expect(selectSqliteBinding(inputs({}, [built]))).toBeUndefined();
  });

  it('Electron uses its own-ABI build from .electron-native/ for its exact version and platform', () => {
    expect(built).toBe('/opt/commonroom/.electron-native/electron-45.5.0-linux-x64/better_sqlite3.node');
    expect(selectSqliteBinding(inputs({ versions: { electron: '45.5.0' } }, [built]))).toBe(built);
    // another Electron version or arch never picks up a build made for a different ABI
    expect(selectSqliteBinding(inputs({ versions: { electron: '46.0.0' } }, [built]))).toBeUndefined();
    expect(selectSqliteBinding(inputs({ versions: { electron: '45.5.0' }, arch: 'arm64' }, [built]))).toBeUndefined();
  });

  it('a packaged app (no .electron-native) uses the package\'s build, which electron-builder rebuilt', () => {
    expect(selectSqliteBinding(inputs({ versions: { electron: '45.5.0' } }))).toBeUndefined();
  });

  it('COMMONROOM_SQLITE_BINDING wins, and a wrong one says how to fix it', () => {
    expect(selectSqliteBinding(inputs({ env: { COMMONROOM_SQLITE_BINDING: '/x/b.node' } }, ['/x/b.node']))).toBe('/x/b.node');
    expect(() => selectSqliteBinding(inputs({ env: { COMMONROOM_SQLITE_BINDING: '/x/missing.node' } }))).toThrow(/does not exist: point it at/);
  });
});

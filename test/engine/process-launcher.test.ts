import { describe, expect, it } from 'vitest';
import { AgentSandbox } from '../../src-main/engine/process/agent-sandbox';
import { ProcessLauncher, type Placement } from '../../src-main/engine/process/launcher';

const secrets = { configDir: '/nowhere/config', dataDir: '/nowhere/data', markdownPath: '/nowhere/room.md', databasePath: '/nowhere/room.md.commonroom.db', lockPath: '/nowhere/room.md.commonroom.lock' };
const request = { file: '/bin/echo', args: ['hi'], env: { A: '1' }, cwd: '/tmp', owner: 'dev' };

describe('process/launcher.ts: one place decides where and how a process starts', () => {
  it("the person's processes run as they are, on this machine, and the sandbox is not even probed for them", () => {
    const sandbox = new AgentSandbox(secrets, { COMMONROOM_SANDBOX: 'off' });
    const launcher = new ProcessLauncher(sandbox);
    expect(launcher.placementFor('operator')).toEqual({ host: 'local', sandbox: null });
    expect(launcher.launch(launcher.placementFor('operator'), request)).toEqual({ file: '/bin/echo', args: ['hi'], env: { A: '1' } });
  });

  it("an agent's process runs as it is only when this machine has no sandbox (here: turned off)", () => {
    const launcher = new ProcessLauncher(new AgentSandbox(secrets, { COMMONROOM_SANDBOX: 'off' }));
    expect(launcher.placementFor('agent')).toEqual({ host: 'local', sandbox: null });
  });

  it('another host is refused until it exists (the seam for remote placement)', () => {
    const launcher = new ProcessLauncher(new AgentSandbox(secrets, { COMMONROOM_SANDBOX: 'off' }));
    const elsewhere = { host: 'build-box', sandbox: null } as unknown as Placement;
    expect(() => launcher.launch(elsewhere, request)).toThrow(/processes run on this machine only \(asked for host build-box\)/);
  });
});

/** An in-process runner on a free loopback port in a throw-away home, with its operator token. */
import fs from 'node:fs';
import { startRunner, type RunnerOptions, type RunningRoom } from '../../src-main/server/runner';
import { makeHome, type TestHome } from './env';

export interface TestRunner {
  home: TestHome;
  running: RunningRoom;
  /** The operator's bearer token, as the runner wrote it to its token file. */
  token: string;
  close(): Promise<void>;
}

export async function startTestRunner(options: Omit<RunnerOptions, 'port' | 'paths'> = {}): Promise<TestRunner> {
  const home = makeHome();
  const running = await startRunner({ ...options, port: 0, paths: home.paths });
  return {
    home,
    running,
    token: fs.readFileSync(running.tokenFile, 'utf8').trim(),
    async close() {
      await running.close();
      home.cleanup();
    },
  };
}

/**
 * The layer rules of eslint.config.js, run on small sources as if they were files of each door: a door that
 * reaches past DoorEngine (the Engine class, engine.ts, a registry's module) fails lint with the reason.
 */
import path from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { REPO } from '../helpers/env';

const eslint = new ESLint({ cwd: REPO });

async function problems(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(REPO, file) });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('doors reach the engine only through DoorEngine', () => {
  for (const door of ['mcp', 'api', 'bridge', 'app']) {
    it(`${door}/: the ports are allowed; the Engine class, engine.ts and a registry's module are not`, async () => {
      const file = `src-main/${door}/probe.ts`;
      expect(await problems(file, "import type { DoorEngine, TaskReads } from '../engine/index';\nexport type X = [DoorEngine, TaskReads];\n")).toEqual([]);
      expect(await problems(file, "import { Engine } from '../engine/index';\nexport const x = Engine;\n")).toEqual([expect.stringContaining('DoorEngine')]);
      expect(await problems(file, "import type { Engine } from '../engine/engine';\nexport type X = Engine;\n")).toEqual([expect.stringContaining('engine/index.ts')]);
      expect(await problems(file, "import { ShellRegistry } from '../engine/shells/shell-registry';\nexport const x = ShellRegistry;\n")).toEqual([expect.stringContaining('engine/index.ts')]);
    });
  }

  it('what starts an engine (cli/, server/) may hold the Engine class, but not its modules', async () => {
    for (const file of ['src-main/cli/probe.ts', 'src-main/server/probe.ts']) {
      expect(await problems(file, "import { Engine } from '../engine/index';\nexport const x = Engine;\n")).toEqual([]);
      expect(await problems(file, "import { TaskService } from '../engine/tasks/task-service';\nexport const x = TaskService;\n")).toHaveLength(1);
    }
  });

  it('shells/ and graphs/ never import each other, from any depth of their folders', async () => {
    expect(await problems('src-main/engine/graphs/run/probe.ts', "import { ShellRegistry } from '../../shells/shell-registry';\nexport const x = ShellRegistry;\n")).toEqual([expect.stringContaining('sibling feature')]);
    expect(await problems('src-main/engine/graphs/run/probe.ts', "import { StageLog } from '../logs/stage-log';\nexport const x = StageLog;\n")).toEqual([]);
    expect(await problems('src-main/engine/shells/probe.ts', "import { graphsFeature } from '../graphs/graphs-feature';\nexport const x = graphsFeature;\n")).toEqual([expect.stringContaining('sibling feature')]);
  });
});

describe("the renderer's screens never import each other", () => {
  it('a screen importing another screen fails lint naming the shared folder; shared/, stores/ and its own folder are fine', async () => {
    const file = 'src-renderer/src/features/history/Probe.tsx';
    expect(await problems(file, "import { OpenedHandoff } from '../inbox/OpenedHandoff';\nexport const x = OpenedHandoff;\n")).toEqual([expect.stringContaining('src-renderer/src/shared/')]);
    expect(await problems(file, "import '../agents/agents.css';\n")).toEqual([expect.stringContaining('one screen')]);
    expect(await problems(file, "import { useHandoff } from '../../shared/handoff/use-handoff';\nimport { HistoryScreen } from './HistoryScreen';\nexport const x = [useHandoff, HistoryScreen];\n")).toEqual([]);
    // the renderer's own rules still hold in a screen's folder
    expect(await problems(file, "import fs from 'node:fs';\nexport const x = fs;\n")).toHaveLength(1);
  });
});

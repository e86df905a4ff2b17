#!/usr/bin/env node
// What one IPC message costs its sender (as the room's message to its spawner helper): `child.send()` of a
// spawn-sized message (the environment included) to a child asleep in its event loop, against back-to-back sends
// to a child that is awake. On a VM, waking another process is most of a hop, paid inside the writer's `write`.
// usage: node bench/investigations/ipc-wake.js [N]
import { fork } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { median } from '../lib/stats.js';

if (process.argv[2] === '--child') {
  process.on('message', (m) => m === 'bye' && process.exit(0));
} else {
  const n = Number(process.argv[2] ?? 300);
  const child = fork(import.meta.filename, ['--child'], { serialization: 'advanced' });
  const message = ['spawn', 1, 'true', [], process.cwd(), { ...process.env }, false];
  const timeSend = () => {
    const t = process.hrtime.bigint();
    child.send(message);
    return Number(process.hrtime.bigint() - t) / 1000;
  };
  await sleep(300);
  const asleep = [];
  for (let i = 0; i < n; i++) {
    await sleep(2); // the child has gone back to sleep
    asleep.push(timeSend());
  }
  const awake = [];
  for (let i = 0; i < n; i++) awake.push(timeSend());
  console.log(`send() to a sleeping child: median ${median(asleep).toFixed(1)} µs; back to back: ${median(awake).toFixed(1)} µs (${n} each)`);
  child.send('bye');
}

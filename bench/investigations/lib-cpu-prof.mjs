// Loaded with NODE_OPTIONS=--import (where --cpu-prof is not allowed): profiles this process from its start and
// writes a .cpuprofile in CPU_PROF_DIR when it exits. Used by remote-stream.js for the host's relay and node.
import fs from 'node:fs';
import inspector from 'node:inspector';
import path from 'node:path';

const dir = process.env.CPU_PROF_DIR;
if (dir) {
  const session = new inspector.Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.setSamplingInterval', { interval: 1000 });
  session.post('Profiler.start');
  process.on('exit', () => {
    session.post('Profiler.stop', (error, result) => {
      if (error) return;
      const role = process.argv.slice(2).join('-').replace(/[^\w-]/g, '').slice(0, 40);
      fs.writeFileSync(path.join(dir, `${role}.${process.pid}.cpuprofile`), JSON.stringify(result.profile));
    });
  });
}

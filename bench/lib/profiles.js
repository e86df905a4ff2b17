// Summaries of CPU profiles (V8's .cpuprofile, Chromium's CDP Profiler) and Chromium performance traces:
// self time by function, or by trace event on the busiest threads.
import fs from 'node:fs';
import path from 'node:path';

export const TRACE_CATEGORIES = ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'blink', 'cc', 'v8'];

export function summarize(label, profile, n) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map();
  const dt = profile.timeDeltas;
  for (let i = 0; i < profile.samples.length; i++) {
    const f = byId.get(profile.samples[i]).callFrame;
    const key = `${f.functionName || '(anonymous)'} ${f.url ? `${path.basename(f.url).slice(0, 40)}:${f.lineNumber + 1}:${f.columnNumber + 1}` : ''}`.trim();
    self.set(key, (self.get(key) ?? 0) + (dt[i] ?? 0));
  }
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const idle = self.get('(idle)') ?? 0;
  console.log(`\n${label}: ${(total / 1000).toFixed(0)} ms profiled, idle ${((idle / total) * 100).toFixed(0)}%, busy ${((total - idle) / 1000).toFixed(0)} ms`);
  for (const [key, us] of [...self].filter(([k]) => k !== '(idle)').sort((a, b) => b[1] - a[1]).slice(0, n)) {
    console.log(`${((us / (total - idle)) * 100).toFixed(1).padStart(5)}% of busy  ${key}`);
  }
  if (process.env.PROFILE_CALLERS) {
    // the stacks (3 callers deep) under which a function named PROFILE_CALLERS ran
    const up = new Map();
    for (const node of profile.nodes) for (const child of node.children ?? []) up.set(child, node.id);
    const stacks = new Map();
    for (let i = 0; i < profile.samples.length; i++) {
      const names = [];
      for (let id = profile.samples[i]; id !== undefined; id = up.get(id)) {
        const f = byId.get(id).callFrame;
        names.push(`${f.functionName || '(anonymous)'}${f.url ? `@${path.basename(f.url).slice(0, 20)}:${f.lineNumber + 1}` : ''}`);
      }
      const at = names.findIndex((n) => n.startsWith(`${process.env.PROFILE_CALLERS}@`) || n === process.env.PROFILE_CALLERS);
      if (at < 0) continue;
      const key = names.slice(at, at + 5).join(' < ');
      stacks.set(key, (stacks.get(key) ?? 0) + (dt[i] ?? 0));
    }
    for (const [key, us] of [...stacks].sort((a, b) => b[1] - a[1]).slice(0, 8)) console.log(`${(us / 1000).toFixed(0).padStart(6)} ms  ${key}`);
  }
  if (!process.env.PROFILE_INCLUSIVE) return;
  // inclusive: each function's share of the samples it is on the stack of (callers show what called the hot code)
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const inclusive = new Map();
  for (let i = 0; i < profile.samples.length; i++) {
    const seen = new Set();
    for (let id = profile.samples[i]; id !== undefined; id = parent.get(id)) {
      const f = byId.get(id).callFrame;
      const key = `${f.functionName || '(anonymous)'} ${f.url ? `${path.basename(f.url).slice(0, 40)}:${f.lineNumber + 1}:${f.columnNumber + 1}` : ''}`.trim();
      if (seen.has(key)) continue;
      seen.add(key);
      inclusive.set(key, (inclusive.get(key) ?? 0) + (dt[i] ?? 0));
    }
  }
  console.log('inclusive:');
  for (const [key, us] of [...inclusive].filter(([k]) => !['(idle)', '(root)'].includes(k)).sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.PROFILE_INCLUSIVE))) {
    console.log(`${((us / (total - idle)) * 100).toFixed(1).padStart(5)}% of busy  ${key}`);
  }
}

/** Self time of complete trace events on the busiest thread (the renderer's main thread), by name. */
export function summarizeTrace(events, n) {
  const byThread = new Map();
  for (const e of events) {
    if (e.ph !== 'X' || typeof e.dur !== 'number') continue;
    const key = `${e.pid}:${e.tid}`;
    if (!byThread.has(key)) byThread.set(key, []);
    byThread.get(key).push(e);
  }
  const threads = [...byThread].map(([key, list]) => [key, list, list.reduce((a, e) => a + e.dur, 0)]).sort((a, b) => b[2] - a[2]);
  for (const [key, list] of threads.slice(0, 2)) {
    // self time: an event's duration minus that of the events nested directly inside it
    list.sort((a, b) => a.ts - b.ts || b.dur - a.dur);
    const self = new Map();
    const stack = [];
    for (const e of list) {
      while (stack.length > 0 && stack.at(-1).ts + stack.at(-1).dur <= e.ts) stack.pop();
      const parent = stack.at(-1);
      // a task is named by where it was posted from, so "RunTask" says which kind of task held the thread
      const name = (x) => (x.name === 'RunTask' && x.args?.src_func ? `RunTask ${x.args.src_func}` : x.name);
      if (parent) self.set(name(parent), (self.get(name(parent)) ?? 0) - e.dur);
      self.set(name(e), (self.get(name(e)) ?? 0) + e.dur);
      stack.push(e);
    }
    const total = [...self.values()].reduce((a, b) => a + b, 0);
    const frames = list.filter((e) => e.name === 'ProxyMain::BeginMainFrame').length;
    const tasks = list.filter((e) => e.name === 'RunTask').length;
    console.log(`\ntrace thread ${key}: ${(total / 1000).toFixed(0)} ms in events; ${frames} frames, ${tasks} tasks`);
    for (const [name, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, n)) console.log(`${((us / total) * 100).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(7)} ms  ${name}`);
  }
}


/** CPU time (user + system, ms) of a process and each of its descendants, by command kind, from /proc. */
export function cpuOfTree(rootPid) {
  const tick = 1000 / 100; // USER_HZ is 100 on Linux
  const procs = new Map();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      const kind = /--type=([\w-]+)/.exec(cmdline)?.[1] ?? path.basename(cmdline.split('\0')[0] ?? '?');
      procs.set(Number(entry), { ppid: Number(fields[1]), kind, ms: (Number(fields[11]) + Number(fields[12])) * tick });
    } catch {
      // gone meanwhile
    }
  }
  const byKind = {};
  const visit = (pid) => {
    const p = procs.get(pid);
    if (!p) return;
    byKind[p.kind] = (byKind[p.kind] ?? 0) + p.ms;
    for (const [child, c] of procs) if (c.ppid === pid) visit(child);
  };
  visit(rootPid);
  return byKind;
}

/** The difference of two cpuOfTree() readings, ms by kind. */
export function cpuSince(before, after) {
  return Object.fromEntries(Object.entries(after).map(([kind, ms]) => [kind, Math.round(ms - (before[kind] ?? 0))]));
}

// The spawner thread's program (docs/architecture.md "Engine processes": "Started off the host's
// thread"): plain JavaScript run with `new Worker(source, { eval: true })`, so the same text works
// in the built app, in Electron's main process and under the tests, with no bundler entry of its own.
// It spawns each engine exactly as the host would, and relays stdio, exit and close by message.
export const SPAWNER_THREAD_SOURCE = String.raw`
'use strict';
const { parentPort } = require('node:worker_threads');
const { spawn } = require('node:child_process');
const children = new Map();
const post = (m) => parentPort.postMessage(m);
const codeOf = (e) => (e && typeof e.code === 'string' ? e.code : 'unknown');

function start(m) {
  let child;
  try {
    child = spawn(m.command, m.args, {
      cwd: m.cwd, env: m.env === null ? process.env : m.env, stdio: ['pipe', 'pipe', 'pipe'],
      detached: process.platform !== 'win32', shell: false, windowsHide: true,
    });
  } catch (e) {
    post({ t: 'error', id: m.id, code: codeOf(e), message: String(e) });
    post({ t: 'close', id: m.id });
    return;
  }
  children.set(m.id, child);
  let spawned = false;
  child.on('spawn', () => { spawned = true; post({ t: 'spawn', id: m.id, pid: child.pid }); });
  child.on('error', (e) => { if (!spawned && child.pid === undefined) post({ t: 'error', id: m.id, code: codeOf(e), message: String(e) }); });
  child.on('exit', (code, signal) => post({ t: 'exit', id: m.id, code, signal }));
  child.on('close', () => { children.delete(m.id); post({ t: 'close', id: m.id }); });
  for (const [name, stream] of [['out', child.stdout], ['err', child.stderr]]) {
    if (!stream) continue;
    stream.setEncoding('utf8');
    stream.on('data', (data) => post({ t: name, id: m.id, data }));
    stream.on('error', () => undefined);
  }
  if (child.stdin) child.stdin.on('error', () => undefined);
}

parentPort.on('message', (m) => {
  if (m.t === 'spawn') return start(m);
  if (m.t === 'crash') throw new Error('spawner thread: crash requested by a test');
  const child = children.get(m.id);
  if (!child) return;
  if (m.t === 'in') child.stdin && !child.stdin.destroyed && child.stdin.write(m.data);
  else if (m.t === 'in-end') child.stdin && child.stdin.destroy();
  else if (m.t === 'out-end') { child.stdout && child.stdout.destroy(); child.stderr && child.stderr.destroy(); }
});
`;

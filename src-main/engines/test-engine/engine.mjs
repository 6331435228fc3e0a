// A real engine for tests and the crash test: it speaks the line protocol, writes its output
// slowly in chunks, and misbehaves on request, so the runner is proven against a real process.
// Plain .mjs on purpose: it starts in ~50 ms with bare node, and under Electron with ELECTRON_RUN_AS_NODE.
//
// job.input (all optional):
//   bytes (1024), chunks (4), chunkMs (20), name ('output.bin'): the output file and its pace
//   stderr: text to write on stderr first           errorCode/errorParams: answer with an error line
//   crash: chunk index at which to SIGKILL itself   hang: chunk index after which it goes silent forever
//   garbage: chunk index at which to print a non-JSON line
//   exitCode: exit with this code (no result)       noResult: exit 0 without a result
//   spawnChild: start a sleeping grandchild first (its pid is logged as "grandchild <pid>")
//   ignoreTerm: ignore SIGTERM, so only the SIGKILL after the grace period ends it
//   holdWhile: a path; after its first chunk the engine waits while that file exists, having written
//     PATH.JOBID.PID.held (a test holds units mid-way and lets them end by events, not by a pace)
//   logKeyed: also write a keyed log line ("downloaded", with bytes), as production engines do
//   burn: spend each chunk's chunkMs as CPU time instead of sleeping (an engine that fills a core:
//     the load benchmark's loaded machine, the CPU-priority test)
// The result's metadata carries the argv it received, to prove arguments arrive literally, and its
// pid (a long-lived one also logs it). A job line with keepAlive (a long-lived engine, engine-process.ts) leaves the process running
// for the next job, as the production long-lived engines do; without it the process exits after one.
import { spawn } from 'node:child_process';
import { closeSync, existsSync, fsyncSync, openSync, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';

const send = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
/** Keeps a core busy for this much of its own CPU time (a loaded machine's engine, `burn`), however slowly the clock of a shared core runs. */
function burn(ms) {
  const until = process.cpuUsage().user + ms * 1000;
  while (process.cpuUsage().user < until) for (let i = 0; i < 1e4; i++);
}

// The host closing stdin (or dying) means nobody will commit what we write: stop at once,
// taking any helper processes of our group with us.
let received = '';
let job = null;
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  received += chunk;
  next();
});

/** Takes the next job line, if none runs now. */
function next() {
  if (job) return;
  const newline = received.indexOf('\n');
  if (newline < 0) return;
  job = JSON.parse(received.slice(0, newline));
  received = received.slice(newline + 1);
  run(job).then(() => finish(), (e) => {
    // A full volume is said the way the production programs say it (program-kit.ts): DISK_FULL,
    // not this item's fault, so the host holds instead of counting an attempt.
    if (e?.code === 'ENOSPC') {
      send({ type: 'error', code: 'DISK_FULL', params: { errno: 'ENOSPC' }, diagnostic: String(e?.message ?? e) });
      finish();
      return;
    }
    process.stderr.write(`test engine failed: ${e?.stack ?? e}\n`);
    process.exit(70);
  });
}
process.stdin.on('end', () => hostGone());
process.stdout.on('error', () => hostGone());

function hostGone() {
  try {
    process.kill(-process.pid, 'SIGKILL');
  } catch {
    process.exit(1);
  }
}

async function run(job) {
  const input = job.input ?? {};
  const bytes = input.bytes ?? 1024;
  const chunks = Math.max(1, input.chunks ?? 4);
  const chunkMs = input.chunkMs ?? 20;
  const name = input.name ?? 'output.bin';
  if (input.ignoreTerm) process.on('SIGTERM', () => send({ type: 'log', level: 'warn', text: 'ignoring SIGTERM' }));
  if (input.stderr) process.stderr.write(`${input.stderr}\n`);
  if (input.spawnChild) {
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    send({ type: 'log', level: 'info', text: `grandchild ${child.pid}` });
  }
  send({ type: 'log', level: 'info', text: `job ${job.jobId} ${job.operation}` });
  // A keyed line (src-shared/runs/log-keys.ts), as production engines write them.
  if (input.logKeyed) send({ type: 'log', level: 'info', text: `downloaded ${bytes} bytes`, key: 'downloaded', params: { bytes } });
  // A long-lived one says which process took the job (one process, unit after unit).
  if (job.keepAlive) send({ type: 'log', level: 'info', text: `long-lived pid ${process.pid}` });
  if (input.errorCode) {
    send({ type: 'error', code: input.errorCode, params: input.errorParams ?? {}, diagnostic: 'upstream said no' });
    return;
  }

  const file = path.join(job.outputDir, name);
  const fd = openSync(file, 'w');
  let written = 0;
  for (let i = 0; i < chunks; i += 1) {
    if (input.crash === i) process.kill(process.pid, 'SIGKILL');
    if (input.garbage === i) process.stdout.write('this is not json\n');
    if (input.hang === i) await new Promise(() => setInterval(() => {}, 1000));
    if (i === 1 && typeof input.holdWhile === 'string' && existsSync(input.holdWhile)) {
      // Says it holds (HOLDFILE.JOBID.PID.held), so a test waits for that event, not for a pace.
      writeFileSync(`${input.holdWhile}.${job.jobId}.${process.pid}.held`, '');
      while (existsSync(input.holdWhile)) await sleep(50);
    }
    const size = i === chunks - 1 ? bytes - written : Math.floor(bytes / chunks);
    writeSync(fd, Buffer.alloc(size, 0x61 + (i % 26)));
    written += size;
    // A keyed message (src-shared/runs/progress-keys.ts `chunkOf`) with its English text, as the real engines send it.
    send({ type: 'progress', ratio: (i + 1) / chunks, message: `chunk ${i + 1} of ${chunks}`, key: 'chunkOf', params: { chunk: i + 1, of: chunks } });
    if (input.burn) burn(chunkMs);
    else await sleep(chunkMs);
  }
  fsyncSync(fd);
  closeSync(fd);

  if (input.exitCode !== undefined) process.exit(input.exitCode);
  if (!input.noResult) {
    send({ type: 'result', outputs: [{ name: 'output', path: name, bytes: written }], metadata: { argv: process.argv.slice(2), pid: process.pid } });
  }
}

// A one-shot engine exits explicitly: stdin stays open by design, so the event loop would never
// drain on its own. A long-lived one waits for its next job.
function finish() {
  if (job?.keepAlive && !job.input?.noResult) {
    job = null;
    next();
    return;
  }
  process.stdout.write('', () => process.exit(0));
}

// A test's fence inside a unit's commit (test/reliability, docs/reliability.md): with
// BACKLOT_TEST_COMMIT_FENCE=<operation>:<point>:<kill|stop> the host stops itself once at that point
// of the first commit of that operation, so a kill -9 or a full disk meets exactly that instant with
// any engine, production ones included. Points: `before-commit` (outputs written, nothing moved),
// `before-record` (outputs renamed into place under the journal, the settle transaction not run),
// `after-record` (the settle committed, the journal not yet removed). Never set outside the tests.
export type CommitFencePoint = 'before-commit' | 'before-record' | 'after-record';

interface Fence { operation: string; point: CommitFencePoint; action: 'kill' | 'stop' }

function parse(value: string | undefined): Fence | null {
  const m = /^([a-z-]+):(before-commit|before-record|after-record):(kill|stop)$/.exec(value ?? '');
  return m ? { operation: m[1], point: m[2] as CommitFencePoint, action: m[3] as Fence['action'] } : null;
}

let armed = parse(process.env.BACKLOT_TEST_COMMIT_FENCE);

/**
 * At a fence point of a unit's commit: nothing, unless the test's fence names it. Then, once, one line
 * on stderr and SIGKILL (the host dies there) or SIGSTOP (it waits there until the test sends SIGCONT).
 */
export function commitFence(operation: string, point: CommitFencePoint, jobId: string): void {
  if (armed === null || armed.operation !== operation || armed.point !== point) return;
  const { action } = armed;
  armed = null;
  process.stderr.write(`commit fence: ${action} ${operation} ${point} ${jobId}\n`);
  process.kill(process.pid, action === 'kill' ? 'SIGKILL' : 'SIGSTOP');
}

// No uncaught error ends the process silently (issue 9). An error that escapes into the process
// is logged with the request or run it belongs to (error-context.ts). When it belongs to an API
// request that is still unanswered, that request is answered with a code and the host keeps
// serving: nothing but that request's own work was on the stack, and a transaction it had open
// was rolled back by the throw. Anywhere else the host's state can no longer be trusted, so it
// stops the way a clean stop does (the open runs are marked interrupted, the lock is released)
// and exits with one sentence. See docs/reliability.md, "Uncaught errors".
import { currentErrorScope, describeScope } from './error-context';
import { isBacklotError } from '../../src-shared/errors';

/** EX_SOFTWARE, as the CLI exits on any INTERNAL failure. */
export const INTERNAL_EXIT_CODE = 70;
/** A stop that hangs (an engine that ignores its kill, a wedged disk) does not keep the process. */
const STOP_DEADLINE_MS = 15_000;

export interface ProcessGuardOptions {
  log?: (line: string) => void;
  exit?: (code: number) => never | void;
}

type StopStep = () => Promise<void>;

const stopSteps: StopStep[] = [];
let installed: (() => void) | null = null;
let stopping = false;

/**
 * Registers what a fatal error must do before the process exits (for a host: stop the app, which
 * marks open runs interrupted). Returns the function that removes it again.
 */
export function onFatalStop(step: StopStep): () => void {
  stopSteps.push(step);
  return () => {
    const i = stopSteps.indexOf(step);
    if (i >= 0) stopSteps.splice(i, 1);
  };
}

/** Installs the process-level handlers once; returns the function that removes them. */
export function installProcessGuards(options: ProcessGuardOptions = {}): () => void {
  if (installed) return installed;
  const log = options.log ?? ((line: string) => { process.stderr.write(`${line}\n`); });
  const exit = options.exit ?? ((code: number) => process.exit(code));

  const handle = (error: unknown) => {
    const scope = currentErrorScope();
    log(`backlot: internal error ${describeScope(scope)}: ${summary(error)}`);
    if (process.env.BACKLOT_DEBUG && error instanceof Error && error.stack) log(error.stack);
    if (!stopping && scope?.kind === 'request') {
      const answered = scope.answer(isBacklotError(error)
        ? { code: error.code, message: error.message }
        : { code: 'INTERNAL', message: `Backlot failed while answering ${scope.label}; the details are in the host's log.` });
      if (answered) return;
    }
    void stopAndExit(describeScope(scope));
  };

  async function stopAndExit(where: string): Promise<void> {
    if (stopping) return;
    stopping = true;
    const deadline = setTimeout(() => {
      log('backlot: INTERNAL: Backlot stopped after an unexpected error and could not finish its stop in time; the open runs will be marked interrupted at the next start.');
      exit(INTERNAL_EXIT_CODE);
    }, STOP_DEADLINE_MS);
    let clean = true;
    for (const step of [...stopSteps].reverse()) {
      try {
        await step();
      } catch (e) {
        clean = false;
        log(`backlot: the stop after the error failed too: ${summary(e)}`);
      }
    }
    clearTimeout(deadline);
    const runs = stopSteps.length === 0 ? '' : clean
      ? '; the runs that were open are marked interrupted'
      : '; the open runs will be marked interrupted at the next start';
    log(`backlot: INTERNAL: Backlot stopped after an unexpected error ${where}${runs}.`);
    exit(INTERNAL_EXIT_CODE);
  }

  const onException = (error: Error) => handle(error);
  const onRejection = (reason: unknown) => handle(reason);
  process.on('uncaughtException', onException);
  process.on('unhandledRejection', onRejection);
  installed = () => {
    process.off('uncaughtException', onException);
    process.off('unhandledRejection', onRejection);
    installed = null;
  };
  return installed;
}

/** `TypeError: x is not a function (at src-main/api/handlers.ts:41:7)`: the error and where it arose. */
export function summary(error: unknown): string {
  if (!(error instanceof Error)) return `a thrown ${typeof error}: ${String(error).slice(0, 200)}`;
  const code = isBacklotError(error) || typeof (error as NodeJS.ErrnoException).code === 'string' ? ` [${(error as NodeJS.ErrnoException).code}]` : '';
  const frame = error.stack?.split('\n').slice(1).find((l) => l.trim().startsWith('at '))?.trim().replace(/^at\s+/, '');
  return `${error.name}${code}: ${error.message}${frame ? ` (at ${frame})` : ''}`;
}

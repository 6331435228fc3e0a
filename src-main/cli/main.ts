// The `backlot` command line: parses the command word, hands the rest to that command, and turns
// every refusal into one sentence on stderr and a non-zero exit. Never a stack trace.
import { isBacklotError } from '../../src-shared/errors';
import { loadCommand, printCommandHelp, printHelp } from './commands/index';
import { CliUsageError } from './args';
import { storageErrorCode } from '../db/storage-errors';
import { installProcessGuards, INTERNAL_EXIT_CODE } from '../system/uncaught';

// Every command, the long-running hosts (serve) above all: an error that escapes every handler is
// logged with its request or run and answered, or stops the host cleanly with one sentence.
installProcessGuards();

async function main(argv: string[]): Promise<number> {
  const [word, ...rest] = argv;
  if (word === undefined || word === '--help' || word === '-h' || word === 'help') {
    await printHelp();
    return 0;
  }
  const command = await loadCommand(word);
  if (!command) throw new CliUsageError(`Unknown command "${word}"; run "backlot --help" for the list.`);
  if (rest.includes('--help') || rest.includes('-h')) {
    printCommandHelp(command);
    return 0;
  }
  return await command.run(rest);
}

// A reader that stops early (`| head`) is not an error worth a stack trace.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw e;
});

main(process.argv.slice(2)).then(
  (code) => { process.exitCode = code; },
  (err: unknown) => {
    if (err instanceof CliUsageError) {
      process.stderr.write(`backlot: ${err.message}\n`);
      process.exitCode = err.exitCode;
    } else if (isBacklotError(err)) {
      process.stderr.write(`backlot: ${err.code}: ${err.message}\n`);
      process.exitCode = 1;
    } else if (storageErrorCode(err) === 'DISK_FULL') {
      process.stderr.write('backlot: DISK_FULL: The disk holding the library is full; free some space and try again.\n');
      process.exitCode = 1;
    } else if (storageErrorCode(err) === 'IO_ERROR') {
      process.stderr.write(`backlot: IO_ERROR: Reading or writing the library failed (${(err as { code?: string }).code ?? 'I/O error'}).\n`);
      process.exitCode = 1;
    } else {
      process.stderr.write(`backlot: INTERNAL: ${(err as Error)?.message ?? String(err)}\n`);
      if (process.env.BACKLOT_DEBUG) process.stderr.write(`${(err as Error)?.stack ?? ''}\n`);
      process.exitCode = INTERNAL_EXIT_CODE;
    }
  },
);

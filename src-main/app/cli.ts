// The `backlot` command's entry: hands the command line the one app opener, then runs it. The
// command line sits below this wiring and never imports it (docs/architecture.md "Folders"). The
// host is loaded only by a command that opens the library, so `backlot --help` stays quick.
import { useAppOpener } from '../cli/app';

useAppOpener(async (options) => (await import('./open-app')).openApp(options));
await import('../cli/main');

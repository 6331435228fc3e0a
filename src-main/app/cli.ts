// The `backlot` command's entry: hands the command line the one app opener, then runs it. The
// command line sits below this wiring and never imports it (docs/architecture.md "Folders").
import { openApp } from './open-app';
import { useAppOpener } from '../cli/app';

useAppOpener(openApp);
await import('../cli/main');

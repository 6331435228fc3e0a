// What closing the window and quitting mean (docs/desktop.md, "Closing and quitting"): with
// close-to-tray the host keeps working and the window only hides (said once, in a notification);
// otherwise closing quits. Quitting stops the engines cleanly before the process ends: Electron
// does not wait for a promise in will-quit, so the first will-quit is held until the host closed.
export type CloseDecision =
  | { action: 'hide-to-tray'; tell: boolean }
  | { action: 'close' }
  | { action: 'quit' };

export interface CloseInput {
  /** desktop.closeToTray */
  closeToTray: boolean;
  /** A tray icon exists (some Linux desktops have no tray; then close-to-tray would strand the host). */
  trayAvailable: boolean;
  /** The app is already quitting (tray Quit, Cmd+Q, the OS logging out). */
  quitting: boolean;
  /** The user was told once already. */
  toldAboutTray: boolean;
  /** Other windows stay open after this one closes. */
  otherWindows: boolean;
}

export function decideClose(input: CloseInput): CloseDecision {
  if (input.quitting || input.otherWindows) return { action: 'close' };
  if (input.closeToTray && input.trayAvailable) return { action: 'hide-to-tray', tell: !input.toldAboutTray };
  return { action: 'quit' };
}

export type QuitStep = 'hold-and-stop' | 'wait' | 'let-quit';

/**
 * The will-quit gate: the first request starts the host's clean stop and holds the quit; requests
 * while it stops wait; once stopped, the quit goes through. stop() runs exactly once.
 */
export class QuitGate {
  private phase: 'running' | 'stopping' | 'stopped' = 'running';

  constructor(private readonly stop: () => Promise<void>, private readonly onStopped: (error: unknown) => void) {}

  request(): QuitStep {
    switch (this.phase) {
      case 'running':
        this.phase = 'stopping';
        void this.stop().then(() => this.finish(null), (e: unknown) => this.finish(e ?? new Error('stop failed')));
        return 'hold-and-stop';
      case 'stopping':
        return 'wait';
      case 'stopped':
        return 'let-quit';
    }
  }

  get stopped(): boolean {
    return this.phase === 'stopped';
  }

  private finish(error: unknown): void {
    this.phase = 'stopped';
    this.onStopped(error);
  }
}

// Closing and quitting: close-to-tray hides (telling the user once), otherwise closing quits; the
// quit waits for the host to stop its engines, and stops it exactly once.
import { describe, expect, it } from 'vitest';
import { decideClose, QuitGate, type CloseInput } from '../../src-main/shells/electron/lifecycle';

const close = (change: Partial<CloseInput> = {}) => decideClose({ closeToTray: true, trayAvailable: true, quitting: false, toldAboutTray: false, otherWindows: false, ...change });

describe('decideClose', () => {
  it('hides to the tray and tells the user the first time only', () => {
    expect(close()).toEqual({ action: 'hide-to-tray', tell: true });
    expect(close({ toldAboutTray: true })).toEqual({ action: 'hide-to-tray', tell: false });
  });

  it('quits when the setting says quit, or when there is no tray to keep working in', () => {
    expect(close({ closeToTray: false })).toEqual({ action: 'quit' });
    expect(close({ trayAvailable: false })).toEqual({ action: 'quit' });
  });

  it('just closes while the app is quitting, or when another window stays', () => {
    expect(close({ quitting: true })).toEqual({ action: 'close' });
    expect(close({ otherWindows: true, closeToTray: false })).toEqual({ action: 'close' });
  });
});

describe('QuitGate', () => {
  it('holds the first quit while the host stops, holds the ones during, lets the one after through', async () => {
    let release!: () => void;
    let stops = 0;
    const stopped: unknown[] = [];
    const gate = new QuitGate(() => { stops += 1; return new Promise<void>((r) => { release = r; }); }, (e) => stopped.push(e));
    expect(gate.request()).toBe('hold-and-stop');
    expect(gate.request()).toBe('wait');
    expect(gate.stopped).toBe(false);
    release();
    await Promise.resolve();
    await Promise.resolve();
    expect(stopped).toEqual([null]);
    expect(gate.request()).toBe('let-quit');
    expect(stops).toBe(1);
  });

  it('still lets the app quit when the stop fails, and says why', async () => {
    const errors: unknown[] = [];
    const gate = new QuitGate(() => Promise.reject(new Error('engine would not die')), (e) => errors.push(e));
    expect(gate.request()).toBe('hold-and-stop');
    await new Promise((r) => setImmediate(r));
    expect(errors).toHaveLength(1);
    expect((errors[0] as Error).message).toBe('engine would not die');
    expect(gate.request()).toBe('let-quit');
  });
});

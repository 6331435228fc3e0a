// The window opens where it was left, and never off-screen: a saved place on a display that is
// gone is moved onto one that is there; the remembered state survives a restart and a bad file.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_SIZE, MIN_SIZE, displayFor, placeWindow, type Rect } from '../../src-main/shells/electron/window-state';
import { DESKTOP_STATE_FILE, readDesktopState, writeDesktopState } from '../../src-main/shells/electron/desktop-state';

const laptop: Rect = { x: 0, y: 0, width: 1440, height: 875 };
const monitorRight: Rect = { x: 1440, y: 0, width: 2560, height: 1415 };
const saved = (bounds: Rect, maximized = false) => ({ bounds, maximized });

describe('placeWindow', () => {
  it('opens at the default size, centred, the first time', () => {
    expect(placeWindow(null, [laptop])).toEqual({ bounds: { ...DEFAULT_SIZE }, maximized: false });
  });

  it('keeps a place that is on a display as it was', () => {
    expect(placeWindow(saved({ x: 100, y: 50, width: 1100, height: 760 }), [laptop])).toEqual({ bounds: { x: 100, y: 50, width: 1100, height: 760 }, maximized: false });
    expect(placeWindow(saved({ x: 2000, y: 100, width: 1200, height: 900 }, true), [laptop, monitorRight])).toEqual({ bounds: { x: 2000, y: 100, width: 1200, height: 900 }, maximized: true });
  });

  it('moves a window left on an unplugged monitor onto the display that is left, fully visible', () => {
    const placement = placeWindow(saved({ x: 3000, y: 400, width: 1200, height: 900 }), [laptop]);
    expect(placement.bounds).toEqual({ x: 240, y: 0, width: 1200, height: 875 });
  });

  it('clamps a window far off every edge, and one larger than the display', () => {
    expect(placeWindow(saved({ x: -5000, y: -5000, width: 800, height: 600 }), [laptop]).bounds).toEqual({ x: 0, y: 0, width: 800, height: 600 });
    expect(placeWindow(saved({ x: 10, y: 10, width: 4000, height: 3000 }), [laptop]).bounds).toEqual({ x: 0, y: 0, width: 1440, height: 875 });
  });

  it('pulls a partly visible window fully onto the display it overlaps most', () => {
    // Mostly on the right monitor, hanging off its bottom edge.
    expect(placeWindow(saved({ x: 1500, y: 1000, width: 1000, height: 800 }), [laptop, monitorRight]).bounds).toEqual({ x: 1500, y: 615, width: 1000, height: 800 });
  });

  it('never makes a window smaller than the minimum unless the display itself is smaller', () => {
    expect(placeWindow(saved({ x: 0, y: 0, width: 100, height: 100 }), [laptop]).bounds).toMatchObject({ width: MIN_SIZE.width, height: MIN_SIZE.height });
    const tiny: Rect = { x: 0, y: 0, width: 600, height: 400 };
    expect(placeWindow(saved({ x: 0, y: 0, width: 100, height: 100 }), [tiny]).bounds).toMatchObject({ width: 600, height: 400 });
  });

  it('respects a work area that does not start at 0 (a top panel, a display to the left)', () => {
    const leftOfPrimary: Rect = { x: -1920, y: 32, width: 1920, height: 1048 };
    expect(placeWindow(saved({ x: -1900, y: 0, width: 1000, height: 700 }), [laptop, leftOfPrimary]).bounds).toEqual({ x: -1900, y: 32, width: 1000, height: 700 });
  });

  it('picks the nearest display when the window overlaps none', () => {
    expect(displayFor({ x: 5000, y: 0, width: 100, height: 100 }, [laptop, monitorRight])).toBe(monitorRight);
    expect(displayFor({ x: -900, y: 0, width: 100, height: 100 }, [laptop, monitorRight])).toBe(laptop);
  });
});

describe('desktop state file', () => {
  const dirs: string[] = [];
  const tmp = () => { const d = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-desktop-')); dirs.push(d); return d; };
  afterEach(() => { for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true }); });

  it('reads nothing remembered from a new data folder', () => {
    expect(readDesktopState(tmp())).toEqual({ window: null, toldAboutTray: false });
  });

  it('writes the whole state and reads it back, leaving no temporary file', () => {
    const dir = tmp();
    const state = { window: saved({ x: 10, y: 20, width: 900, height: 700 }, true), toldAboutTray: true };
    writeDesktopState(dir, state);
    expect(readDesktopState(dir)).toEqual(state);
    expect(fs.readdirSync(dir)).toEqual([DESKTOP_STATE_FILE]);
  });

  it('reads a damaged or foreign file as nothing remembered', () => {
    const dir = tmp();
    for (const content of ['{not json', '[]', JSON.stringify({ version: 2, window: null, toldAboutTray: true }), JSON.stringify({ version: 1, window: { bounds: { x: 0, y: 0, width: -5, height: 10 }, maximized: false }, toldAboutTray: false })]) {
      fs.writeFileSync(path.join(dir, DESKTOP_STATE_FILE), content);
      expect(readDesktopState(dir), content).toEqual({ window: null, toldAboutTray: false });
    }
  });
});

// The icons in resources/ are there at the sizes the shells and packages ask for: the app icon at
// 16 to 512 px from resources/icon.svg, and every tray state in colour and as a macOS template,
// each at 1x and 2x (made by scripts/make-icons.mjs).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TRAY_STATES } from '../../src-main/shells/electron/tray-model';
import { appIconFile, trayIconFile } from '../../src-main/shells/electron/resources';
// @ts-expect-error: a plain .mjs script without type declarations
import { APP_ICON_SIZES, TRAY_STATES as SCRIPT_TRAY_STATES } from '../../scripts/make-icons.mjs';

const resources = path.resolve('resources');

/** Width and height from a PNG's IHDR chunk, after checking the signature. */
function pngSize(file: string): { width: number; height: number } {
  const bytes = fs.readFileSync(file);
  expect(bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])), file).toBe(true);
  expect(bytes.subarray(12, 16).toString('latin1'), file).toBe('IHDR');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

describe('resources/ icons', () => {
  it('has the app icon drawn as one SVG and rendered at 16 to 512 px', () => {
    expect(fs.readFileSync(path.join(resources, 'icon.svg'), 'utf8')).toMatch(/^<svg [^>]*viewBox="0 0 512 512"/);
    expect(APP_ICON_SIZES).toEqual([16, 24, 32, 48, 64, 128, 256, 512]);
    for (const size of APP_ICON_SIZES as number[]) {
      expect(pngSize(path.join(resources, 'icons', `${size}x${size}.png`))).toEqual({ width: size, height: size });
    }
    expect(pngSize(path.join(resources, 'icon.png'))).toEqual({ width: 512, height: 512 });
    expect(pngSize(appIconFile(resources))).toEqual({ width: 256, height: 256 });
  });

  it('has every tray state the tray model knows, in colour and as a template, at 1x and 2x', () => {
    expect(SCRIPT_TRAY_STATES).toEqual([...TRAY_STATES]);
    for (const state of TRAY_STATES) {
      for (const platform of ['linux', 'win32', 'darwin'] as const) {
        const file = trayIconFile(resources, state, platform);
        expect(pngSize(file)).toEqual({ width: 16, height: 16 });
        expect(pngSize(file.replace(/\.png$/, '@2x.png'))).toEqual({ width: 32, height: 32 });
      }
    }
  });
});

// Packaging, as far as it goes without the Electron binary: electron-builder packs the app for
// Linux (the `dir` target, the step every installer starts from) around a stand-in binary that
// carries a real fuse wire. Proves the configuration: what goes into the archive and beside it,
// the icons and tray images, native modules unpacked, and the afterPack hook flipping the fuses.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FuseV1Options, FuseVersion } from '@electron/fuses';
// @ts-expect-error: the configuration is a plain .mjs module without type declarations
import config from '../../electron-builder.config.mjs';
import { listPackage } from '@electron/asar';
// @ts-expect-error: a CommonJS script without type declarations
import { fuseConfig } from '../../scripts/packaging/fuses.cjs';

const SENTINEL = 'dL7pKGdnNz796PbbjQWNKmHXBZaB9tsX';
// Electron 39 has nine fuses; @electron/fuses 1.x sets the first eight and leaves the ninth.
const WIRE = '111111101';
let work: string;
let unpacked: string;

beforeAll(() => {
  if (!fs.existsSync('out/main/index.js') || !fs.existsSync('out/renderer/index.html')) {
    execFileSync('npx', ['electron-vite', 'build'], { stdio: 'ignore' });
  }
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-pack-'));
  const dist = path.join(work, 'electron-dist');
  fs.mkdirSync(dist);
  fs.writeFileSync(path.join(dist, 'electron'), Buffer.concat([Buffer.from('#!/bin/sh\n'), Buffer.from(SENTINEL), Buffer.from([1, WIRE.length]), Buffer.from(WIRE)]), { mode: 0o755 });
  fs.writeFileSync(path.join(dist, 'LICENSE'), 'stand-in');
  execFileSync('npx', ['electron-builder', '--linux', 'dir', '--config', 'electron-builder.config.mjs',
    `-c.electronDist=${dist}`, '-c.npmRebuild=false', `-c.directories.output=${path.join(work, 'out')}`], { stdio: 'pipe' });
  unpacked = path.join(work, 'out', 'linux-unpacked');
}, 180_000);

afterAll(() => {
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

describe('electron-builder configuration', () => {
  it('targets AppImage and deb, dmg and nsis, with the icons', () => {
    expect(config.linux.target).toEqual(['AppImage', 'deb']);
    expect(config.mac.target).toEqual(['dmg']);
    expect(config.win.target).toEqual(['nsis']);
    expect(fs.existsSync(config.linux.icon)).toBe(true);
    expect(fs.existsSync(config.mac.icon)).toBe(true);
  });

  it('packs the host, the preload and the window into the archive, and no source maps or CLI loader', () => {
    const files = listPackage(path.join(unpacked, 'resources', 'app.asar'), { isPack: false });
    expect(files).toEqual(expect.arrayContaining(['/out/main/index.js', '/out/preload/index.cjs', '/out/renderer/index.html', '/package.json', '/node_modules/better-sqlite3']));
    expect(files.filter((f) => f.endsWith('.map'))).toEqual([]);
    expect(files.some((f) => f.startsWith('/node_modules/tsx'))).toBe(false);
    expect(files.some((f) => f.startsWith('/src-'))).toBe(false);
  });

  it('keeps native modules outside the archive, and the icons, tray images and models beside it', () => {
    const nativeDir = path.join(unpacked, 'resources', 'app.asar.unpacked', 'node_modules', 'better-sqlite3', 'build', 'Release');
    expect(fs.readdirSync(nativeDir)).toContain('better_sqlite3.node');
    expect(fs.readdirSync(path.join(unpacked, 'resources', 'tray'))).toEqual(expect.arrayContaining(['tray-idle.png', 'tray-failed@2x.png', 'tray-heldTemplate.png']));
    expect(fs.readdirSync(path.join(unpacked, 'resources', 'icons'))).toContain('256x256.png');
    expect(fs.readdirSync(path.join(unpacked, 'resources', 'tray')).some((f) => f.endsWith('.svg'))).toBe(false);
  });

  it('unpacks every built engine program and the chunks it imports, so the engines run from real files', () => {
    const main = path.join(unpacked, 'resources', 'app.asar.unpacked', 'out', 'main');
    const built = fs.readdirSync(path.join('out', 'main', 'engines'));
    expect(fs.readdirSync(path.join(main, 'engines')).sort()).toEqual(built.sort());
    for (const id of built) expect(fs.existsSync(path.join(main, 'engines', id, 'program.js')), id).toBe(true);
    expect(fs.readdirSync(path.join(main, 'chunks')).sort()).toEqual(fs.readdirSync(path.join('out', 'main', 'chunks')).filter((f) => !f.endsWith('.map')).sort());
  });

  it('flips the fuses in the packed binary: cookies encrypted, ASAR integrity and ASAR-only on, NODE_OPTIONS and inspect off', () => {
    const binary = fs.readFileSync(path.join(unpacked, 'backlot'));
    const at = binary.indexOf(SENTINEL) + SENTINEL.length;
    expect(binary[at]).toBe(1);
    const wire = binary.subarray(at + 2, at + 2 + binary[at + 1]).toString('latin1');
    const expected = fuseConfig('linux', 'x64');
    expect(expected.version).toBe(FuseVersion.V1);
    const bit = (option: FuseV1Options) => wire[option];
    expect(bit(FuseV1Options.EnableCookieEncryption)).toBe('1');
    expect(bit(FuseV1Options.EnableEmbeddedAsarIntegrityValidation)).toBe('1');
    expect(bit(FuseV1Options.OnlyLoadAppFromAsar)).toBe('1');
    expect(bit(FuseV1Options.EnableNodeOptionsEnvironmentVariable)).toBe('0');
    expect(bit(FuseV1Options.EnableNodeCliInspectArguments)).toBe('0');
    // The engines are this binary run as Node (docs/desktop.md, "Engines under Electron").
    expect(bit(FuseV1Options.RunAsNode)).toBe('1');
    expect(wire).toBe('110011011');
  });

  it('resets the ad-hoc signature only where flipping breaks it (Apple Silicon)', () => {
    expect(fuseConfig('darwin', 'arm64').resetAdHocDarwinSignature).toBe(true);
    expect(fuseConfig('darwin', 'x64').resetAdHocDarwinSignature).toBe(false);
    expect(fuseConfig('win32', 'x64').resetAdHocDarwinSignature).toBe(false);
  });
});

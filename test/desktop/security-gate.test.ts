// The test command's Electron security gate (scripts/security/check-electron.mjs): it passes on
// the app as built, and fails on a HIGH or MEDIUM electronegativity finding, on a dev-server
// address in the built main, and on inline code or styles in the window's page.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error: plain .mjs modules without type declarations
import { blockingFindings, REVIEWED } from '../../scripts/security/findings.mjs';
// @ts-expect-error: plain .mjs modules without type declarations
import { buildProblems } from '../../scripts/security/check-electron.mjs';

const CSP = `<meta http-equiv="Content-Security-Policy" content="default-src 'self'; script-src 'self'; style-src 'self'" />`;
const dirs: string[] = [];
afterAll(() => { for (const d of dirs) fs.rmSync(d, { recursive: true, force: true }); });

function builtApp(main: string, html = `<!doctype html><html><head>${CSP}<script type="module" src="./a.js"></script></head><body></body></html>`): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'backlot-gate-'));
  dirs.push(dir);
  fs.mkdirSync(path.join(dir, 'main'));
  fs.mkdirSync(path.join(dir, 'renderer'));
  fs.writeFileSync(path.join(dir, 'main', 'index.js'), main);
  fs.writeFileSync(path.join(dir, 'renderer', 'index.html'), html);
  return dir;
}

const hardenedMain = `import { BrowserWindow, session } from 'electron';
session.defaultSession.setPermissionRequestHandler((wc, p, cb) => cb(false));
export function open(preload) {
  const win = new BrowserWindow({ webPreferences: { preload, contextIsolation: true, sandbox: true, nodeIntegration: false, disableBlinkFeatures: 'Auxclick' } });
  win.webContents.on('will-navigate', (e) => e.preventDefault());
  win.webContents.setWindowOpenHandler(() => ({ action: 'deny' }));
  return win;
}
`;

const gate = (dir: string) => spawnSync(process.execPath, ['scripts/security/check-electron.mjs', dir], { encoding: 'utf8' });

describe('blockingFindings', () => {
  const issue = (id: string, severity: string) => ({ id, severity: { name: severity }, file: 'main/index.js', location: { line: 3 }, description: 'd' });
  it('blocks HIGH and MEDIUM findings except the ones reviewed by hand', () => {
    expect(Object.keys(REVIEWED)).toEqual(['PRELOAD_JS_CHECK']);
    const found = blockingFindings([issue('AUXCLICK_JS_CHECK', 'MEDIUM'), issue('NODE_INTEGRATION_JS_CHECK', 'HIGH'), issue('PRELOAD_JS_CHECK', 'MEDIUM'), issue('CSP_GLOBAL_CHECK', 'LOW'), issue('X', 'INFORMATIONAL')]);
    expect(found.map((f: { id: string }) => f.id)).toEqual(['AUXCLICK_JS_CHECK', 'NODE_INTEGRATION_JS_CHECK']);
  });
});

describe('buildProblems', () => {
  it('finds a dev-server address in main and inline code, styles or unsafe CSP in the page', () => {
    expect(buildProblems(builtApp(hardenedMain))).toEqual([]);
    expect(buildProblems(builtApp(`const u = process.env.ELECTRON_RENDERER_URL;`))).toEqual([expect.stringContaining('ELECTRON_RENDERER_URL')]);
    expect(buildProblems(builtApp('', `<html><head>${CSP.replace("style-src 'self'", "style-src 'self' 'unsafe-inline'")}</head></html>`))).toEqual([expect.stringContaining('inline code or eval')]);
    expect(buildProblems(builtApp('', `<html><head>${CSP}<style>a{}</style></head></html>`))).toEqual([expect.stringContaining('inline style')]);
    expect(buildProblems(builtApp('', `<html><head>${CSP}<script>alert(1)</script></head></html>`))).toEqual([expect.stringContaining('inline script')]);
    expect(buildProblems(builtApp('', '<html><head></head></html>'))).toEqual([expect.stringContaining('no Content-Security-Policy')]);
  });
});

describe('check-electron.mjs', () => {
  it('passes a hardened app, reporting the reviewed preload note', () => {
    const run = gate(builtApp(hardenedMain));
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('MEDIUM PRELOAD_JS_CHECK');
  });

  it('fails on a MEDIUM finding (a window that lets a middle click open links) and names it', () => {
    const run = gate(builtApp(hardenedMain.replace(", disableBlinkFeatures: 'Auxclick'", '')));
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/MEDIUM AUXCLICK_JS_CHECK at main\/index\.js:4/);
  });

  it('fails on a HIGH finding (a window without context isolation)', () => {
    const run = gate(builtApp(hardenedMain.replace('contextIsolation: true', 'contextIsolation: false')));
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/HIGH CONTEXT_ISOLATION_JS_CHECK/);
  });
});

#!/usr/bin/env node
// The test command's security gate on the built app (out/, as it is packaged): electronegativity
// finds no HIGH or MEDIUM issue beyond the reviewed ones (findings.mjs), the built main never
// reads the dev server's address, and the window's CSP allows no inline script or style.
// Runs offline: the Electron version is given (-e), and electronegativity's two network look-ups
// (translations, the release list for its "newer Electron" check) are answered "offline" at once.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { blockingFindings, REVIEWED } from './findings.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const input = path.resolve(process.argv[2] ?? path.join(root, 'out'));
const require = createRequire(import.meta.url);

function offlineGot() {
  const refuse = () => Promise.reject(new Error('offline: Backlot runs electronegativity without the network'));
  return Object.assign(refuse, { head: refuse, get: refuse, extend: () => offlineGot() });
}

/** Problems in the built files that electronegativity does not look for. */
export function buildProblems(dir) {
  const problems = [];
  const main = path.join(dir, 'main', 'index.js');
  const html = path.join(dir, 'renderer', 'index.html');
  if (fs.existsSync(main) && fs.readFileSync(main, 'utf8').includes('ELECTRON_RENDERER_URL')) {
    problems.push('out/main/index.js reads ELECTRON_RENDERER_URL: a built app must load only its own renderer.');
  }
  if (fs.existsSync(html)) {
    const page = fs.readFileSync(html, 'utf8');
    const csp = /http-equiv="Content-Security-Policy"\s+content="([^"]*)"/.exec(page)?.[1];
    if (!csp) problems.push('out/renderer/index.html has no Content-Security-Policy.');
    else if (csp.includes("'unsafe-inline'") || csp.includes("'unsafe-eval'")) problems.push(`The window's CSP allows inline code or eval: ${csp}`);
    if (/<style[\s>]/i.test(page) || /\sstyle=/i.test(page)) problems.push('out/renderer/index.html carries an inline style, which its CSP refuses.');
    if (/<script(?![^>]*\bsrc=)[^>]*>/i.test(page)) problems.push('out/renderer/index.html carries an inline script, which its CSP refuses.');
  }
  return problems;
}

async function main() {
  if (!fs.existsSync(path.join(input, 'main', 'index.js'))) {
    console.error(`check-electron: ${input} has no built app; run "npm run build" first.`);
    process.exit(2);
  }
  const electronDir = path.dirname(require.resolve('@doyensec/electronegativity/package.json'));
  const gotPath = require.resolve('got', { paths: [electronDir] });
  require.cache[gotPath] = { id: gotPath, filename: gotPath, loaded: true, exports: offlineGot() };
  const run = require('@doyensec/electronegativity');
  const electronVersion = require('electron/package.json').version;
  const quiet = console.log;
  console.log = () => undefined; // its "could not retrieve translations" line, said on every run
  let result;
  try {
    result = await run({
      input,
      electronVersionOverride: electronVersion,
      isRelative: true,
      parserPlugins: [],
      // Needs the network (the list of Electron releases); Electron's version is pinned in package.json.
      excludeFromScan: ['AvailableSecurityFixesGlobalCheck'],
    });
  } finally {
    console.log = quiet;
  }
  const blocking = blockingFindings(result.issues);
  const problems = buildProblems(input);
  const found = result.issues.map((i) => `${i.severity.name} ${i.id}`).join(', ') || 'nothing';
  console.log(`electronegativity (Electron ${electronVersion}, ${result.globalChecks + result.atomicChecks} checks) on ${path.relative(root, input) || '.'}: ${found}; reviewed by hand: ${Object.keys(REVIEWED).join(', ')}`);
  for (const e of result.errors ?? []) console.error(`check-electron: could not parse ${e.file}: ${e.message ?? e.error ?? ''}`);
  for (const f of blocking) console.error(`check-electron: ${f.severity} ${f.id} at ${f.file}:${f.line}: ${f.description}`);
  for (const p of problems) console.error(`check-electron: ${p}`);
  if (blocking.length > 0 || problems.length > 0 || (result.errors ?? []).length > 0) process.exit(1);
  console.log('check-electron: no HIGH or MEDIUM finding beyond the reviewed ones; CSP and dev-server checks pass.');
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();

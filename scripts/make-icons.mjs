#!/usr/bin/env node
// Makes every icon PNG in resources/ from SVG (docs/desktop.md, "Icons"): the app icon at 16 to
// 512 px from resources/icon.svg (drawn by hand), and the tray's four state images, whose SVGs
// this script writes from one drawing so the states differ only in their badge. Rendered with
// librsvg's rsvg-convert (Debian: apt-get install librsvg2-bin). The PNGs are committed; run this
// again only after changing a drawing: node scripts/make-icons.mjs
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const resources = path.join(root, 'resources');
export const APP_ICON_SIZES = [16, 24, 32, 48, 64, 128, 256, 512];
export const TRAY_STATES = ['idle', 'working', 'held', 'failed'];

// The clapperboard of the app icon, simplified for 16 px: the board and the lifted stick.
const GLYPH = `
  <rect x="2.5" y="7" width="11" height="7" rx="1.5"/>
  <g transform="rotate(-9 2.5 6)"><rect x="2.5" y="3" width="11" height="3" rx="0.8"/></g>`;
const STRIPES = `<g transform="rotate(-9 2.5 6)"><path d="M5 3h1.6l-1.4 3h-1.6zM8.4 3h1.6l-1.4 3h-1.6zM11.8 3h1.6l-1.4 3h-1.6z"/></g>`;

// Each state's badge, bottom right: a shape as well as a colour, so it reads without colour.
const BADGE = {
  idle: null,
  working: { color: '#16a34a', mark: '<path d="M11.3 10.6l3 1.9-3 1.9z"/>' },
  held: { color: '#d97706', mark: '<rect x="11.2" y="10.7" width="1.1" height="3.6"/><rect x="12.9" y="10.7" width="1.1" height="3.6"/>' },
  failed: { color: '#dc2626', mark: '<rect x="12.05" y="10.3" width="1.1" height="2.6"/><rect x="12.05" y="13.5" width="1.1" height="1.1"/>' },
};

/** Windows and Linux: the white glyph on the app's colours, with a coloured badge. */
function colouredTray(state) {
  const badge = BADGE[state];
  return `<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 16 16">
  <defs>
    <linearGradient id="bg" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#4f46e5"/><stop offset="1" stop-color="#0e7490"/></linearGradient>
    <mask id="cut"><rect width="16" height="16" fill="#fff"/>${badge ? '<circle cx="12.6" cy="12.5" r="4.4" fill="#000"/>' : ''}</mask>
  </defs>
  <g mask="url(#cut)">
    <rect width="16" height="16" rx="3.5" fill="url(#bg)"/>
    <g fill="#f8fafc">${GLYPH}</g>
    <g fill="#1e1b4b">${STRIPES}</g>
  </g>
  ${badge ? `<circle cx="12.6" cy="12.5" r="3.4" fill="${badge.color}"/><g fill="#fff">${badge.mark}</g>` : ''}
</svg>
`;
}

/** macOS: a black template image the menu bar tints; the badge's mark is cut out of its disc. */
function templateTray(state) {
  const badge = BADGE[state];
  return `<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 16 16">
  <defs>
    <mask id="glyph"><rect width="16" height="16" fill="#fff"/>${STRIPES.replace('<path', '<path fill="#000"')}${badge ? '<circle cx="12.6" cy="12.5" r="4.4" fill="#000"/>' : ''}</mask>
    ${badge ? `<mask id="badge"><rect width="16" height="16" fill="#fff"/><g fill="#000">${badge.mark}</g></mask>` : ''}
  </defs>
  <g fill="#000" mask="url(#glyph)">${GLYPH}</g>
  ${badge ? '<circle cx="12.6" cy="12.5" r="3.4" fill="#000" mask="url(#badge)"/>' : ''}
</svg>
`;
}

function render(svg, png, size) {
  execFileSync('rsvg-convert', ['--width', String(size), '--height', String(size), '--keep-aspect-ratio', '--output', png, '--', svg], { stdio: 'inherit' });
}

function main() {
  try {
    execFileSync('rsvg-convert', ['--version'], { stdio: 'ignore' });
  } catch {
    console.error('make-icons: rsvg-convert is not installed; on Debian: apt-get install librsvg2-bin');
    process.exit(1);
  }
  const icons = path.join(resources, 'icons');
  const tray = path.join(resources, 'tray');
  fs.mkdirSync(icons, { recursive: true });
  fs.mkdirSync(tray, { recursive: true });
  for (const size of APP_ICON_SIZES) render(path.join(resources, 'icon.svg'), path.join(icons, `${size}x${size}.png`), size);
  // electron-builder makes the macOS .icns and the Windows .ico from the 512 px PNG.
  fs.copyFileSync(path.join(icons, '512x512.png'), path.join(resources, 'icon.png'));
  for (const state of TRAY_STATES) {
    for (const [name, svg] of [[`tray-${state}`, colouredTray(state)], [`tray-${state}Template`, templateTray(state)]]) {
      const file = path.join(tray, `${name}.svg`);
      fs.writeFileSync(file, svg);
      render(file, path.join(tray, `${name}.png`), 16);
      render(file, path.join(tray, `${name}@2x.png`), 32);
    }
  }
  console.log(`make-icons: ${APP_ICON_SIZES.length} app icon sizes and ${TRAY_STATES.length * 4} tray images written under resources/`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();

// The window runs under a CSP with no 'unsafe-inline' for styles (docs/desktop.md, "Hardening"):
// its page declares that policy, and no component carries a static style attribute, which Vue
// would insert as markup the policy refuses (bound :style is applied through CSSOM and is fine).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { devServerStyles } from '../../vite.renderer.config';

const rendererDir = path.resolve('src-renderer');
const vueFiles = (dir: string): string[] => fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
  const p = path.join(dir, d.name);
  return d.isDirectory() ? vueFiles(p) : d.name.endsWith('.vue') ? [p] : [];
});

describe('the window’s CSP', () => {
  it('allows no inline script or style in the page it ships', () => {
    const html = fs.readFileSync(path.join(rendererDir, 'index.html'), 'utf8');
    const csp = /http-equiv="Content-Security-Policy"\s+content="([^"]*)"/.exec(html)?.[1] ?? '';
    expect(csp).toMatch(/style-src 'self';/);
    expect(csp).toMatch(/script-src 'self';/);
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('unsafe-eval');
  });

  it('no component template carries a static style attribute', () => {
    const files = vueFiles(rendererDir);
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      const template = /<template>([\s\S]*)<\/template>/.exec(fs.readFileSync(file, 'utf8'))?.[1] ?? '';
      expect(template, path.relative(rendererDir, file)).not.toMatch(/\sstyle\s*=/);
    }
  });

  it('relaxes styles only for the dev server, which injects them for hot reload', () => {
    const plugin = devServerStyles();
    expect(plugin.apply).toBe('serve');
    const transform = plugin.transformIndexHtml as (html: string) => string;
    expect(transform("style-src 'self'; img-src")).toBe("style-src 'self' 'unsafe-inline'; img-src");
  });
});

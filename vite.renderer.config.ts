// The window's build on its own (`npm run build:renderer`): what the headless shell serves and
// what the end-to-end test builds when out/renderer is missing. electron-vite uses the same options.
import { fileURLToPath } from 'node:url';
import vue from '@vitejs/plugin-vue';
import { defineConfig, type Plugin, type UserConfig } from 'vite';

const root = fileURLToPath(new URL('./src-renderer', import.meta.url));
const outDir = fileURLToPath(new URL('./out/renderer', import.meta.url));

/**
 * The built window's CSP allows no inline style (docs/desktop.md, "Hardening"): Vue's styles are
 * extracted into CSS files. Only Vite's dev server injects <style> elements for hot reload, so only
 * the page it serves gets 'unsafe-inline'; a build never does.
 */
export function devServerStyles(): Plugin {
  return {
    name: 'backlot-dev-server-styles',
    apply: 'serve',
    transformIndexHtml: (html) => html.replace("style-src 'self'", "style-src 'self' 'unsafe-inline'"),
  };
}

export const rendererOptions: UserConfig = {
  root,
  // Relative asset paths: the same build loads from file:// in Electron and from / over HTTP.
  base: './',
  plugins: [vue(), devServerStyles()],
  build: {
    outDir,
    emptyOutDir: true,
    rollupOptions: { input: fileURLToPath(new URL('./src-renderer/index.html', import.meta.url)) },
  },
};

export default defineConfig(rendererOptions);

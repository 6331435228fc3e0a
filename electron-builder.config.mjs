// electron-builder's configuration (docs/desktop.md, "Packaging"): AppImage and deb for Linux, dmg
// for macOS, nsis for Windows, with the icons, the built window and host (out/), the engines'
// programs, the bundled models (resources/models, from scripts/install-models.sh) and the fuses.
// `npm run dist` builds with it; it needs the Electron binary, so it is not part of the tests.
export default {
  appId: 'org.backlot.desktop',
  productName: 'Backlot',
  executableName: 'backlot',
  copyright: 'Backlot contributors',
  directories: { output: 'dist', buildResources: 'resources' },
  // out/ holds main (with out/main/engines/<id>/ programs), the preload and the renderer; the
  // production dependencies are added by electron-builder itself.
  // tsx only runs the command line from a checkout; the app's main is already built.
  files: ['out/**', 'package.json', '!out/**/*.map', '!node_modules/**/*.map', '!node_modules/tsx/**'],
  asar: true,
  // Native modules, the engine programs and the chunks they import run from real files: a child process started with
  // ELECTRON_RUN_AS_NODE, and a native .node, cannot be loaded from inside the archive by every tool.
  asarUnpack: ['**/*.node', 'out/main/engines/**', 'out/main/chunks/**'],
  extraResources: [
    { from: 'resources/icons', to: 'icons', filter: ['*.png'] },
    { from: 'resources/tray', to: 'tray', filter: ['*.png'] },
    { from: 'resources/models', to: 'models', filter: ['**/*'] },
  ],
  // electron-builder install-app-deps: native modules (better-sqlite3, and the engines' bindings)
  // rebuilt for Electron's ABI; the engines run on the same binary, so one build serves both.
  npmRebuild: true,
  afterPack: './scripts/packaging/after-pack.cjs',
  linux: {
    target: ['AppImage', 'deb'],
    icon: 'resources/icons',
    category: 'AudioVideo',
    synopsis: 'A media library whose every derived job is scheduled by one rule engine',
    executableName: 'backlot',
  },
  deb: {
    // The media engines call ffmpeg and ffprobe.
    depends: ['ffmpeg'],
  },
  mac: {
    target: ['dmg'],
    icon: 'resources/icon.png',
    category: 'public.app-category.video',
    hardenedRuntime: true,
  },
  win: {
    target: ['nsis'],
    icon: 'resources/icon.png',
  },
  nsis: {
    oneClick: false,
    perMachine: false,
    allowToChangeInstallationDirectory: true,
  },
};

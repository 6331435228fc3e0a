// electron-builder's afterPack hook (electron-builder.config.mjs): flips the Electron fuses of the
// packed app's binary (fuses.cjs) after the files are in place and before signing.
const path = require('node:path');
const { flipFuses } = require('@electron/fuses');
const { fuseConfig } = require('./fuses.cjs');

// electron-builder's Arch enum: its numeric value names the architecture.
const ARCH_NAMES = { 0: 'ia32', 1: 'x64', 2: 'armv7l', 3: 'arm64', 4: 'universal' };

/** The Electron binary inside an unpacked app folder, by platform. */
function electronBinary(context) {
  const { appOutDir, electronPlatformName, packager } = context;
  const productFilename = packager.appInfo.productFilename;
  switch (electronPlatformName) {
    case 'darwin':
    case 'mas':
      return path.join(appOutDir, `${productFilename}.app`);
    case 'win32':
      return path.join(appOutDir, `${productFilename}.exe`);
    default:
      return path.join(appOutDir, packager.executableName);
  }
}

async function afterPack(context) {
  const platform = context.electronPlatformName === 'mas' ? 'darwin' : context.electronPlatformName;
  await flipFuses(electronBinary(context), fuseConfig(platform, ARCH_NAMES[context.arch] ?? String(context.arch)));
}

module.exports = afterPack;
module.exports.default = afterPack;
module.exports.electronBinary = electronBinary;

// Electron fuses for the packaged app (docs/desktop.md, "Hardening"): switches compiled into the
// Electron binary that no environment variable or argument can turn back on. Flipped by
// after-pack.cjs before the app is signed.
const { FuseV1Options, FuseVersion } = require('@electron/fuses');

/**
 * RunAsNode stays on: the engines are this binary started with ELECTRON_RUN_AS_NODE=1 (a
 * utilityProcess has no stdin for the engine line protocol; docs/desktop.md says why).
 * GrantFileProtocolExtraPrivileges stays on: the window is loaded from file:// and its ES modules
 * need it until the renderer moves to a custom protocol.
 */
function fuseConfig(platform, arch) {
  return {
    version: FuseVersion.V1,
    // Flipping fuses breaks an Apple Silicon binary's ad-hoc signature; re-sign it ad hoc.
    resetAdHocDarwinSignature: platform === 'darwin' && arch === 'arm64',
    [FuseV1Options.RunAsNode]: true,
    [FuseV1Options.EnableCookieEncryption]: true,
    [FuseV1Options.EnableNodeOptionsEnvironmentVariable]: false,
    [FuseV1Options.EnableNodeCliInspectArguments]: false,
    [FuseV1Options.EnableEmbeddedAsarIntegrityValidation]: true,
    [FuseV1Options.OnlyLoadAppFromAsar]: true,
    [FuseV1Options.LoadBrowserProcessSpecificV8Snapshot]: false,
    [FuseV1Options.GrantFileProtocolExtraPrivileges]: true,
  };
}

module.exports = { fuseConfig };

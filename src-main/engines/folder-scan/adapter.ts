// The folder sync engine (issue 10): the library's own reconciliation scan run in the host. Its
// program examines the folder reading the library only (library/folder-scan-pass.ts); its commit
// returns the pass as a `folder-scan` record plan, applied in the unit's one settle transaction
// (units/unit-recorders.ts). The folder watcher (library/folder-watcher.ts) makes the sync due when
// files change, and the scan stays the truth.
import { hostServices, type EngineAdapter } from '../adapter';
import { examineFolder, type FolderPass } from '../../library/folder-scan-pass';
import { BacklotError, isBacklotError } from '../../../src-shared/errors';
import { logLine } from '../../../src-shared/runs/log-keys';
import { progressMessage } from '../../../src-shared/runs/progress-keys';

export const folderScanAdapter: EngineAdapter = {
  id: 'folder-scan',
  operation: 'sync',
  profile: 'production',
  accepts: (channel) => channel.kind === 'folder',
  cost: () => ({ secondsFixed: 5, secondsPerMediaSecond: 0 }),
  fingerprint: () => 'folder-scan-1',
  preflight: () => Promise.resolve({ ok: true }),
  launch: (job) => ({
    kind: 'in-process',
    run: async (io) => {
      try {
        const pass = await examineFolder(job.channel, hostServices(job).library, { onPage: (pages) => io.progress(0, progressMessage('scanPages', { pages })) });
        for (const w of pass.warnings.slice(0, 50)) io.log('warn', logLine('scanWarning', { file: w.path, code: w.code, message: w.message }));
        // The pass travels to the commit on the outcome, in memory (an in-process job's outcome is never serialised).
        return { ok: true, outputs: [], metadata: { pass }, logs: [], diagnostic: '' };
      } catch (e) {
        if (isBacklotError(e)) return { ok: false, code: e.code, params: e.params, diagnostic: e.message, logs: [] };
        throw e;
      }
    },
  }),
  // The summary line (added, changed, removed) is the recorder's: it knows what the settle wrote.
  commit: (job, outcome) => {
    const pass = outcome.metadata.pass as FolderPass | undefined;
    if (!pass || pass.channelId !== job.channel.id) {
      throw new BacklotError('SCAN_PASS_MISSING', `The scan of channel "${job.channel.id}" ended without its pass; nothing was recorded.`, { channel: job.channel.id });
    }
    const { channelId, settingsFingerprint, findings, unchanged } = pass;
    return { recordedPath: null, bytes: 0, plans: [{ kind: 'folder-scan', channelId, settingsFingerprint, findings, unchanged }] };
  },
};

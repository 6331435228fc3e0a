// The folder sync engine (issue 10): the library's own reconciliation scan (library/folder-scan.ts)
// run in the host, since it writes the database page by page as it goes; the folder watcher
// (library/folder-watcher.ts) makes the sync due when files change, and the scan stays the truth.
import { hostServices, type EngineAdapter } from '../adapter';
import { scanFolderChannel } from '../../library/folder-scan';
import { isBacklotError } from '../../../src-shared/errors';
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
      const host = hostServices(job).acquisition.host;
      let pages = 0;
      try {
        const r = await scanFolderChannel(host, job.channel.id, { onCheckpoint: () => { pages++; io.progress(0, progressMessage('scanPages', { pages })); } });
        for (const w of r.warnings.slice(0, 50)) io.log('warn', logLine('scanWarning', { file: w.path, code: w.code, message: w.message }));
        io.log('info', r.unreadable
          ? logLine('scanSummaryUnreadable', { added: r.added, changed: r.changed, removed: r.removed, unchanged: r.unchanged, unreadable: r.unreadable })
          : logLine('scanSummary', { added: r.added, changed: r.changed, removed: r.removed, unchanged: r.unchanged }));
        return { ok: true, outputs: [], metadata: { added: r.added, changed: r.changed, removed: r.removed, unreadable: r.unreadable }, logs: [], diagnostic: '' };
      } catch (e) {
        if (isBacklotError(e)) return { ok: false, code: e.code, params: e.params, diagnostic: e.message, logs: [] };
        throw e;
      }
    },
  }),
  commit: () => ({ recordedPath: null, bytes: 0 }),
};

// A running unit's progress messages in Hungarian (docs/i18n.md "Progress messages"), typed against
// the keys: a key without its Hungarian message is a compile error.
import type { ProgressKey } from '../../../src-shared/runs/progress-keys';

export const PROGRESS_HU: Readonly<Record<ProgressKey, string>> = {
  chunkOf: '{chunk}. szakasz ({of} közül)',
  chunk: '{chunk}. szakasz',
  diarizeDecoding: 'A hang dekódolása',
  diarizeSegmenting: 'Ki mikor beszél: a felvétel szakaszolása',
  diarizeEmbedding: 'A hangok mérése',
  finished: 'Kész',
  scanPages: '{pages} átnézve',
  downloadReceived: 'Letöltve: {received}',
  downloadReceivedSpeed: 'Letöltve: {received}, {speed}/mp',
  downloadOf: 'Letöltve: {received} / {total}',
  downloadOfSpeed: 'Letöltve: {received} / {total}, {speed}/mp, még {etaS} mp',
  waitingForHost: 'Várakozás, amíg a(z) {host} kiszolgálón sorra kerül',
  waitingBetweenDownloads: 'Várakozás a letöltések között: {waitS} mp',
  ytdlpStarting: 'A yt-dlp indul',
  listing: 'A lista olvasása',
  listingEntries: 'Eddig {entries}',
  feedFetching: 'A hírcsatorna letöltése',
  feedParsing: 'A hírcsatorna feldolgozása ({bytes})',
  fetchingPublisherTranscript: 'A kiadó átiratának letöltése',
  fetchingPlatformSubtitles: 'A platform feliratainak letöltése',
  fetchingSourceTranscript: 'A forrás átiratának letöltése',
  converting: 'Átalakítás: {format}',
  digestWhole: 'Összefoglalás',
  digestPart: 'Összefoglalás: {part}. rész ({of} közül)',
  digestCombining: 'A részek összevonása, {round}. kör',
};

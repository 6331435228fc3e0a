// Every reason code (src-shared/reasons/codes.ts) as a Hungarian sentence. Typed against the one list
// of codes: a code without its sentence here is a compile error.
import type { ReasonCode } from '../../../src-shared/reasons/codes';
import { num, text, type Sentence, type SentenceContext, type Params } from './sentence-kit';

const lane = (p: Params, c: SentenceContext) => (text(p.lane) ? `a(z) ${c.lane(text(p.lane)!)} sávon` : 'a sávján');
const laneName = (p: Params, c: SentenceContext) => (text(p.lane) ? `A(z) ${c.lane(text(p.lane)!)} sáv` : 'A sávja');
const pool = (p: Params) => (text(p.lane)?.includes('@') ? ` (a(z) „${text(p.lane)!.slice(text(p.lane)!.indexOf('@') + 1)}” gépcsoportban)` : '');
const withCode = (p: Params) => (text(p.code) ? ` (${text(p.code)})` : '');
// Hungarian keeps the noun singular after a number: "3 kísérlet".
const count = (value: unknown, noun: string, c: SentenceContext) => {
  const n = num(value);
  return n === undefined ? undefined : `${c.f.count(n)} ${noun}`;
};
const at = (t: unknown, c: SentenceContext) => (num(t) === undefined ? undefined : c.f.when(num(t)!));

export const REASONS_HU: Readonly<Record<ReasonCode, Sentence>> = {
  DONE: (p) => (p.source === 'folder'
    ? 'Nincs mit letölteni: a média a mappa saját fájlja.'
    : 'Kész: a kimenete megvan és naprakész.'),
  RUNNING: (p) => (text(p.run) ? `Most fut, a(z) #${text(p.run)} futásban.` : 'Most fut.'),
  READY: (p, c) => `Indulásra kész: semmi sem tartja vissza; ${lane(p, c)} a következő választáskor indul.`,
  MEDIA_GONE: () => 'A médiafájlja eltűnt, ezért ez itt nem futhat.',
  SOURCE_GONE: (p) => (text(p.channel) ? `A(z) „${text(p.channel)}” csatornát eltávolították a könyvtárból.` : 'A csatornáját eltávolították a könyvtárból.'),
  BLOCKED_ON: (p, c) => (text(p.operation)
    ? `Vár erre: ${c.op(text(p.operation)!)}; ennek kell előbb elkészülnie ennél az elemnél.`
    : 'Egy másik művelet befejezésére vár ennél az elemnél.'),
  BACKOFF_UNTIL: (p, c) => {
    const when = at(p.t, c);
    if (p.code === 'DAILY_CAP') return when ? `A platform mai letöltési kerete elfogyott; ekkor indul: ${when}.` : 'A platform mai letöltési kerete elfogyott.';
    return when ? `Nem sikerült, és újrapróbálásra vár; a következő kísérlet ideje: ${when}.` : 'Nem sikerült, és vár az újrapróbálás előtt.';
  },
  FAILED: (p, c) => {
    const attempts = count(p.attempts, 'kísérlet', c);
    return `Feladva${attempts ? ` ${attempts} után` : ''}${withCode(p)}; addig vár, amíg újra nem indítod.`;
  },
  EXCLUDED: (p) => `Egy szabály visszatartja${withCode(p)}.`,
  NOT_MATCHED: () => 'Az ütemezési fa egyik szabálya sem veszi fel, ezért sosem kerül sorra.',
  WORK_NOT_FOUND: () => 'Nincs ilyen munka a könyvtárban.',

  LANE_PAUSED: (p, c) => (p.all === true
    ? 'Minden mással együtt szüneteltetve: semmi új nem indul, amíg mindent nem folytatsz.'
    : `${laneName(p, c)} szüneteltetve: semmi új nem indul rajta, amíg nem folytatod.`),
  LANE_NO_SLOTS: (p, c) => (num(p.setting) !== undefined
    ? `${laneName(p, c)} itt nem tud futni: nincs használható GPU, így a Beállításokban megadott ${c.f.count(num(p.setting)!)} hely (lanes.gpu.slots) nem használható.`
    : `${laneName(p, c)} helyeinek száma nulla, ezért semmi sem fut rajta.`),
  QUIET_HOURS: (p, c) => {
    const until = at(p.until, c);
    return `Csendes órák ${lane(p, c)}${until ? ` eddig: ${until}` : ''}.`;
  },
  SPEND_CAP: (p, c) => {
    const cap = num(p.capUsd) === undefined ? '' : ` (${c.f.usd(num(p.capUsd)!)})`;
    return `Elérte a költségkeretet${cap}; a fizetős munka vár.`;
  },
  GPU_YIELD: (p, c) => `Átadja a GPU-t egy átírásnak${text(p.to) ? ` a(z) ${c.lane(text(p.to)!)} sávon` : ''}, amíg az el nem készül.`,
  DISK_GATE: (p) => {
    switch (text(p.mode)) {
      case 'draining': return 'Kevés a szabad hely: a futó letöltések befejeződnek, de új nem indul.';
      case 'shut': return 'A lemez majdnem megtelt: a médialetöltések leálltak.';
      default: return `A lemezkapu visszatartja${text(p.mode) ? ` (${text(p.mode)})` : ''}.`;
    }
  },
  DISK_FULL: (p) => `A lemez megtelt${text(p.path) ? ` itt: ${text(p.path)}` : ''}: semmit sem lehet írni, amíg nem lesz hely.`,
  NETWORK_COOLDOWN: (p, c) => {
    const until = at(p.until, c);
    return `${text(p.platform) ?? 'A platform'} visszautasította a Backlotot; a letöltései várnak${until ? ` eddig: ${until}` : ''}.`;
  },
  PREFLIGHT_FAILED: (p, c) => {
    const message = text(p.message);
    return `A motor ${lane(p, c)} nem ment át az ellenőrzésen${withCode(p)}${message ? `: ${message}` : '.'}`;
  },
  POOL_OFFLINE: (p, c) => (text(p.code)
    ? `${laneName(p, c)}${pool(p)} nincs szolgálatban lévő munkagépe (${text(p.code)}): a munkája vár, amíg csatlakozik egy munkagép, amely futtatni tudja.`
    : `${laneName(p, c)}${pool(p)} nincs élő munkagépe: a munkája vár, amíg egy munkagép csatlakozik.`),
  POOL_TRANSPORT_DOWN: (p, c) => `A gépcsoport átvitele (Redis) nem érhető el, ezért ${lane(p, c)} nem indul munka, amíg vissza nem tér.`,
  POOL_UNIT_WITHDRAWN: (p, c) => `Egyetlen szolgálatban lévő munkagép sem vette át ezt az egységet ${lane(p, c)} a gépcsoport bérleti idején belül${text(p.code) ? ` (${text(p.code)})` : ''}: visszakerült a gépcsoport sorából, és egy másik sáv kapja meg; ez nem számít az elem hibájának.`,
  WORKER_LOST: (p, c) => `Egy munkagép ${lane(p, c)} nem válaszol: az egysége visszakerül a sorba, és ez nem számít az elem hibájának.`,
  WORKER_OUT_OF_SERVICE: (p, c) => `Egy munkagép ${lane(p, c)} kivonta magát a szolgálatból${withCode(p)}; egy elemet sem buktat el, és a sáv olyan munkagépre vár, amely futtatni tudja.`,
  WORKER_ENGINE_MISSING: (p) => `Egy munkagép nem tudja futtatni azt a motort, amellyel a gazdagép ezt a munkát végzi${text(p.engine) ? ` (${text(p.engine)})` : ''}: kivonta azt a sávot a szolgálatból, és visszaadta az egységet a gépcsoportnak; egy elemet sem buktat el.`,
  WORKER_DOOR_UNREACHABLE: () => 'Egy munkagép 10 percig nem érte el a gazdagép munkagép-ajtaját; az egysége visszakerül a sorba, és ez nem számít az elem hibájának.',
  MAP_TARGET_MISSING: (p) => `Egy mappa, amelyet a munkagép leképez${text(p.folder) ? ` (${text(p.folder)})` : ''}, nincs meg a munkagépen (nincs csatolva?); a munkagép egy elemet sem buktat el, és azon a sávon nem vállal munkát.`,
  MAP_NOT_THIS_LIBRARY: (p) => `A munkagép leképezett mappája${text(p.folder) ? ` (${text(p.folder)})` : ''} nem ennek a könyvtárnak a mappája (nincs egyező .backlot-library jelölő); a munkagép egy elemet sem buktat el, és azon a sávon nem vállal munkát, amíg a helyes mappát nem csatolják.`,
  NODE_FULL: (p) => (text(p.node) ? `A fa „${text(p.node)}” csoportja elérte a munkáskorlátját.` : 'A fa egyik csoportja elérte a munkáskorlátját.'),
  PASSIVE_BEHIND: (p) => `A passzív${text(p.node) ? ` „${text(p.node)}”` : ''} csoport vár, amíg sürgősebb munka használja a sávot.`,
  LANE_BUSY: (p, c) => {
    const ahead = count(p.ahead, 'indulásra kész elem', c);
    return `A sáv minden helye foglalt${ahead ? `; előbb ${ahead} következik` : ''}.`;
  },

  ENGINE_NOT_INSTALLED: () => 'A motor nincs telepítve ebben a változatban.',
  ENGINE_DISABLED: () => 'A motor ki van kapcsolva a beállításokban.',
  NO_ENGINE_ENABLED: () => 'Ehhez a munkához egyetlen motor sincs bekapcsolva a beállításokban.',
  NO_USABLE_GPU: () => 'Nem található használható GPU.',
  MODEL_MISSING: (p) => `A motor modellje${text(p.model) ? ` („${text(p.model)}”)` : ''} nincs telepítve; add hozzá a „backlot models add” paranccsal.`,
  PREFLIGHT_ERROR: () => 'A motor ellenőrzése nem tudott befejeződni.',

  SOME_FAILED: (p, c) => {
    const failed = count(p.failed, 'elem', c);
    return failed ? `${failed} nem sikerült; a többi igen.` : 'Néhány elem nem sikerült; a többi igen.';
  },
  ALL_FAILED: () => 'A futás minden eleme sikertelen volt.',
  HOST_STOPPED: () => 'A Backlot leállt, miközben ez futott; nem folytatódott.',
  ALREADY_CLAIMED: () => 'Valaki más vette fel előbb ezt a munkát.',
  ENGINE_TIMEOUT: () => 'A motor túl sokáig futott, ezért leállították.',
  ENGINE_STALLED: () => 'A motor abbahagyta a haladás jelentését, ezért leállították.',
  ENGINE_CANCELLED: () => 'A motort megszakították.',
  ENGINE_CRASHED: () => 'A motor összeomlott.',
  ENGINE_EXIT: () => 'A motor hibával lépett ki.',
  ENGINE_PROTOCOL: () => 'A motor megszegte a protokollt.',
  ENGINE_NO_RESULT: () => 'A motor eredmény nélkül ért véget.',
  ENGINE_OUTPUT_INVALID: () => 'A motor használhatatlan kimenetet adott.',
  ENGINE_SPAWN: () => 'A motort nem sikerült elindítani.',
  ENGINE_INTERNAL: () => 'A motor váratlanul hibát jelzett.',
  ENGINE_BAD_JOB: () => 'A motor nem tudta beolvasni a feladatát.',
  ENGINE_UNAVAILABLE: (p) => `Egyetlen motor sem futhat itt, amely ezt kezeli${withCode(p)}.`,
  NO_ENGINE_ACCEPTS: () => 'A bekapcsolt motorok egyike sem kezeli ezt a fajta forrást.',
  IO_ERROR: (p) => `Egy fájl olvasása vagy írása nem sikerült${text(p.errno) ? ` (${text(p.errno)})` : ''}.`,
  INPUT_CHANGED: () => 'A bemenete futás közben megváltozott; az újjal készül el újra.',
  OUTPUT_MISSING: () => 'A motor kimenete hiányzott.',
  OUTPUT_COMMIT_FAILED: () => 'A motor kimenetét nem sikerült menteni.',
  OUTPUT_COMMIT_INVALID: () => 'A motor kimenete érvénytelen volt, ezért nem lett mentve.',

  LIVE_NOW: () => 'Éppen élőben megy; akkor töltődik le, amikor rendes videó lesz belőle.',
  UPCOMING: () => 'Még nem kezdődött el; akkor töltődik le, amikor rendes videó lesz belőle.',
  NETWORK_REFUSED: (p) => `A platform visszautasította a kérést${text(p.status) ? ` (HTTP ${text(p.status)})` : ''}.`,
  FEED_NOT_XML: (p) => `A hírcsatorna nem érvényes XML${text(p.line) ? ` (${text(p.line)}. sor)` : ''}.`,
  FEED_NOT_A_FEED: (p) => `A cím nem hírcsatorna${text(p.root) ? ` (hanem <${text(p.root)}>)` : ''}.`,
  FEED_TOO_LARGE: () => 'A hírcsatorna nagyobb a méretkorlátnál.',
  FEED_HTTP_STATUS: (p) => `A hírcsatorna kiszolgálója ezt válaszolta: HTTP ${text(p.status) ?? 'hiba'}.`,
  FEED_UNREACHABLE: () => 'A hírcsatorna kiszolgálója nem érhető el.',
  NO_MEDIA: () => 'Ennek a bejegyzésnek nincs hangja vagy videója, így nincs mit letölteni vagy átírni.',
  FEED_ENTITY_REFUSED: () => 'A hírcsatorna XML-entitásokat deklarál, amelyeket a Backlot sosem bont ki, ezért nem olvasható.',
  HOST_NOT_FOUND: (p) => `A gépnév${text(p.host) ? ` (${text(p.host)})` : ''} nem oldható fel; ellenőrizze a címet vagy a hálózatot.`,
  CONNECTION_REFUSED: (p) => `${text(p.host) ?? 'A kiszolgáló'} elutasította a kapcsolatot.`,
  CONNECTION_RESET: (p) => `${text(p.host) ?? 'A kiszolgáló'} válasz előtt bontotta a kapcsolatot.`,
  HOST_UNREACHABLE: (p) => `${text(p.host) ?? 'A kiszolgáló'} nem érhető el erről a hálózatról.`,
  TLS_FAILED: (p) => `A biztonságos kapcsolat${text(p.host) ? ` (${text(p.host)})` : ''} nem jött létre${text(p.reason) ? `: ${text(p.reason)}` : ''}.`,
  TIMED_OUT: (p) => `${text(p.host) ?? 'A kiszolgáló'} nem válaszolt időben.`,
  DOWNLOAD_INTERRUPTED: () => 'A kapcsolat megszakadt letöltés közben; a következő kísérlet folytatja.',
  DOWNLOAD_STALLED: () => 'A kiszolgáló abbahagyta a küldést; a következő kísérlet folytatja a letöltést.',
  DOWNLOAD_WRONG_TYPE: (p) => `A kiszolgáló média helyett ezt küldte: ${text(p.type) ?? 'valami mást'}.`,
  DOWNLOAD_NOT_FOUND: () => 'A média már nincs a kiszolgálón.',
  DOWNLOAD_UNAVAILABLE: () => 'A platform szerint a videó nem érhető el.',
  YTDLP_NOT_FOUND: () => 'A yt-dlp nincs telepítve.',

  MEDIA_MISSING: (p) => `A médiafájl${text(p.file) ? ` (${text(p.file)})` : ''} nincs meg.`,
  MEDIA_NO_AUDIO: () => 'A médiafájlban nincs hangsáv.',
  MEDIA_UNREADABLE: (p) => `A médiafájl${text(p.file) ? ` (${text(p.file)})` : ''} nem olvasható hangként vagy videóként; talán sérült, vagy nem is média.`,
  MEDIA_EMPTY: (p) => `A médiafájl${text(p.file) ? ` (${text(p.file)})` : ''} üres (0 bájt); ha a fájl megváltozik, újra próbálkozik.`,
  FFMPEG_MISSING: () => 'Az ffmpeg nincs telepítve.',
  MODEL_INVALID: (p) => `A motor modellfájlja${text(p.file) ? ` (${text(p.file)})` : ''} sérült vagy más fajta.`,
  JOB_INPUT_INVALID: (p) => `A motor hiányos feladatot kapott${text(p.field) ? ` (nincs benne: ${text(p.field)})` : ''}.`,
  INPUT_MISSING: () => 'Hiányzik egy kimenet, amelyre ez a munka épül.',
  INPUT_INVALID: () => 'Hibás egy kimenet, amelyre ez a munka épül.',
  SETTING_INVALID: (p) => `Egy beállítás${text(p.setting) ? ` (${text(p.setting)})` : ''} értéke a motor számára használhatatlan.`,
  DECODE_CANCELLED: () => 'A dekódolást megszakították.',

  // A forrás saját átirata (docs/transcripts.md "When it fails"); a helyi motor veszi át.
  PUBLISHER_TRANSCRIPT_NOT_FOUND: () => 'A kiadó átirata nincs a megadott címen (404); egy helyi motor írja át az elemet.',
  PUBLISHER_TRANSCRIPT_HTTP_STATUS: (p) => `A kiadó kiszolgálója nem adta ki az átiratot${text(p.status) ? ` (HTTP ${text(p.status)})` : ''}; egy helyi motor írja át az elemet.`,
  PUBLISHER_TRANSCRIPT_MALFORMED: (p) => `A kiadó ${text(p.format) ?? ''} átirata nem olvasható${text(p.line) ? ` (${text(p.line)}. sor)` : ''}; egy helyi motor írja át az elemet.`,
  PUBLISHER_TRANSCRIPT_EMPTY: () => 'A kiadó átiratában nincs egy szó sem; egy helyi motor írja át az elemet.',
  PUBLISHER_TRANSCRIPT_FORMAT: (p) => `A kiadó átirata olyan formátumú, amelyet a Backlot nem tud olvasni${text(p.type) ? ` (${text(p.type)})` : ''}; egy helyi motor írja át az elemet.`,
  PUBLISHER_TRANSCRIPT_TOO_LARGE: () => 'A kiadó átirata túl nagy a letöltéshez; egy helyi motor írja át az elemet.',
  PUBLISHER_TRANSCRIPT_UNTIMED: () => 'A kiadó átiratában nincsenek időpontok, és a média hossza ismeretlen; egy helyi motor írja át az elemet.',
  SUBTITLES_NONE: (p) => `A platform nem kínál feliratot${text(p.language) ? ` „${text(p.language)}” nyelven` : ''} ehhez az elemhez; egy helyi motor írja át.`,
  SUBTITLES_UNAVAILABLE: () => 'A platform szerint az elem feliratai nem érhetők el; egy helyi motor írja át.',
  SUBTITLES_FETCH_FAILED: () => 'A yt-dlp nem tudta letölteni az elem feliratait; egy helyi motor írja át.',
};

// The desktop shell in Hungarian (mirrors en.ts sentence by sentence; see desktop-text.ts).
// Article-free phrasing ("Átírás: ...") sidesteps a/az agreement with names we do not control.
import type { DesktopText, Formatters, Params } from './desktop-text';
import { distinctParams, numberParam, sharedParam, textParam } from './desktop-text';

const LANES: Record<string, string> = { sync: 'szinkronizálás', download: 'letöltés', gpu: 'GPU', cpu: 'CPU', remote: 'távoli' };
const OPERATIONS: Record<string, string> = {
  sync: 'szinkronizálás', download: 'letöltés', transcribe: 'átírás', diarize: 'beszélők szétválasztása',
  'attribute-voices': 'hangok azonosítása', 'attribute-words': 'szavak beszélőhöz rendelése', digest: 'összefoglaló',
};
// A pool lane is its base lane's name with its pool: `GPU@studio` (docs/pools.md).
const laneLabel = (lane: string): string => (lane.includes('@') ? `${laneLabel(lane.slice(0, lane.indexOf('@')))}@${lane.slice(lane.indexOf('@') + 1)}` : LANES[lane] ?? lane);
const operation = (id: string) => OPERATIONS[id] ?? id;
const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
// Hungarian keeps the noun singular after a number: "3 próbálkozás".
const counted = (n: number, noun: string, f: Formatters) => `${f.count(n)} ${noun}`;
const SPEND_WINDOW: Record<string, string> = { day: 'napi', week: 'heti', month: 'havi' };

function hold(code: string, p: Params, f: Formatters): string {
  switch (code) {
    case 'LANE_PAUSED': return p.all === true ? 'minden mással együtt szüneteltetve' : 'szüneteltetve';
    case 'LANE_NO_SLOTS': return 'nincs egyetlen futóhelye sem';
    case 'QUIET_HOURS': {
      const until = numberParam(p, 'until');
      return until === undefined ? 'csendes órák' : `csendes órák ${f.clock(until)}-ig`;
    }
    case 'SPEND_CAP': {
      const cap = numberParam(p, 'capUsd');
      return cap === undefined ? 'elérte a költségkeretet' : `elérte a költségkeretet (${f.usd(cap)})`;
    }
    case 'GPU_YIELD': return 'átadja a GPU-t egy átírásnak';
    case 'DISK_GATE':
      return textParam(p, 'mode') === 'shut' ? 'majdnem megtelt a lemez: a letöltések leálltak'
        : textParam(p, 'mode') === 'draining' ? 'kevés a hely: nem indul új letöltés' : 'a lemezkapu visszatartja';
    case 'DISK_FULL': return 'megtelt a lemez: semmi sem írható';
    case 'NETWORK_COOLDOWN': {
      const platform = textParam(p, 'platform') ?? 'egy platform';
      const until = numberParam(p, 'until');
      return until === undefined ? `vár, amíg ${platform} újra fogad kéréseket` : `vár ${platform} miatt ${f.clock(until)}-ig`;
    }
    case 'PREFLIGHT_FAILED': {
      const c = textParam(p, 'code');
      return `a motorjai nem mentek át az ellenőrzésen${c ? ` (${c})` : ''}`;
    }
    case 'POOL_OFFLINE': return 'a gépcsoportnak nincs élő munkagépe';
    case 'POOL_TRANSPORT_DOWN': return 'a gépcsoport átvitele (Redis) nem érhető el';
    case 'WORKER_LOST': return 'egy munkagép nem válaszol; az egysége újra sorba kerül';
    case 'WORKER_OUT_OF_SERVICE': return 'a munkagépe kivonta magát a szolgálatból';
    default: return `visszatartva (${code})`;
  }
}

export const HU: DesktopText = {
  locale: 'hu',
  trayState: { idle: 'Tétlen', working: 'Dolgozik', held: 'Visszatartva', failed: 'Hiba történt' },
  tooltip: {
    running: (count, perLane) => `${count} fut: ${perLane}`,
    nothingRunning: 'Semmi sem fut.',
    held: (lanes) => `${lanes} sáv visszatartva.`,
    failures: (count) => `${count} hiba, mióta utoljára megnézte.`,
  },
  tray: {
    open: 'Backlot megnyitása',
    pauseAll: 'Minden szüneteltetése',
    resumeAll: 'Minden folytatása',
    lanes: 'Sávok',
    pauseLane: (label, status) => `${capital(label)} szüneteltetése — ${status}`,
    resumeLane: (label) => `${capital(label)} folytatása — szüneteltetve`,
    laneIdle: 'tétlen',
    laneRunning: (count) => `${count} fut`,
    holds: 'Visszatartások',
    noHolds: 'Semmi sem tartja vissza a sávokat',
    quit: 'Kilépés a Backlotból',
  },
  laneLabel,
  operation,
  hold: (h, f) => hold(h.code, h.params, f),
  notices: {
    'run-failed': {
      one: (n, f) => {
        const op = capital(operation(textParam(n.params, 'operation') ?? 'munka'));
        const what = textParam(n.params, 'title') ?? textParam(n.params, 'item');
        const attempts = numberParam(n.params, 'attempts');
        return {
          title: 'Sikertelen munka',
          body: `${op}${what ? `: „${what}”` : ''} ${attempts ? `${counted(attempts, 'próbálkozás', f)} után sem sikerült` : 'az utolsó újrapróbálkozás után sem sikerült'}.`,
        };
      },
      many: (count, ns, f) => {
        const op = sharedParam(ns, 'operation');
        return { title: 'Sikertelen munka', body: `${counted(count, 'feladat', f)}${op ? ` (${operation(op)})` : ''} az utolsó újrapróbálkozás után sem sikerült.` };
      },
    },
    'disk-gate-shut': {
      one: (n, f) => {
        const free = numberParam(n.params, 'freeBytes');
        return {
          title: 'Letöltések leállítva',
          body: free === undefined ? 'A könyvtár lemeze majdnem megtelt, ezért a médialetöltések leálltak.'
            : `A könyvtár lemezén csak ${f.bytes(free)} szabad, ezért a médialetöltések leálltak.`,
        };
      },
      many: (count, _ns, f) => ({ title: 'Letöltések leállítva', body: `A lemezkapu ${counted(count, 'alkalommal', f)} zárt: a könyvtár lemeze majdnem megtelt, ezért a médialetöltések leálltak.` }),
    },
    'disk-full': {
      one: () => ({ title: 'Megtelt a lemez', body: 'A lemez megtelt: a Backlot minden írást visszatart, és magától folytatja, amint újra lesz hely.' }),
      many: () => ({ title: 'Megtelt a lemez', body: 'A lemez megtelt: a Backlot minden írást visszatart, és magától folytatja, amint újra lesz hely.' }),
    },
    'cooldown-opened': {
      one: (n, f) => {
        const platform = textParam(n.params, 'platform');
        const until = numberParam(n.params, 'until');
        return {
          title: 'Platform-várakozás',
          body: `${platform ? `${platform}: e` : 'Egy platform e'}lutasította a Backlot kéréseit; a letöltései és szinkronizálásai ${until === undefined ? 'egy ideig várnak' : `${f.clock(until)}-ig várnak`}.`,
        };
      },
      many: (count, ns, f) => {
        const platforms = distinctParams(ns, 'platform');
        return {
          title: 'Platform-várakozás',
          body: platforms.length === 1 ? `${platforms[0]}: ${counted(count, 'alkalommal', f)} elutasította a Backlot kéréseit; a letöltései és szinkronizálásai várnak.`
            : `${counted(count, 'platform-elutasítás', f)}${platforms.length > 0 ? ` (${platforms.join(', ')})` : ''}; a letöltéseik és szinkronizálásaik várnak.`,
        };
      },
    },
    'preflight-failed': {
      one: (n) => {
        const lane = textParam(n.params, 'lane');
        const code = textParam(n.params, 'code');
        return { title: 'Egy sáv nem indul', body: `${lane ? `${capital(laneLabel(lane))} sáv` : 'Egy sáv'}: nem tud elindulni, mert a motorjai nem mentek át az ellenőrzésen${code ? ` (${code})` : ''}.` };
      },
      many: (count, ns, f) => {
        const lanes = distinctParams(ns, 'lane').map(laneLabel);
        return { title: 'Sávok nem indulnak', body: `${counted(count, 'sávellenőrzés', f)} sikertelen${lanes.length > 0 ? ` (${lanes.join(', ')})` : ''}: ezek a sávok nem tudnak elindulni.` };
      },
    },
    'spend-cap-reached': {
      one: (n, f) => {
        const cap = numberParam(n.params, 'capUsd');
        const window = SPEND_WINDOW[textParam(n.params, 'window') ?? ''];
        return { title: 'Elérte a költségkeretet', body: `A távoli munka leállt, mert elérte a ${window ? `${window} ` : ''}költségkeretet${cap === undefined ? '' : ` (${f.usd(cap)})`}.` };
      },
      many: (_count, ns, f) => HU.notices['spend-cap-reached'].one(ns[ns.length - 1], f),
    },
    'backlog-finished': {
      one: (n, f) => {
        const op = textParam(n.params, 'operation');
        const done = numberParam(n.params, 'done');
        return { title: 'Elfogyott a hátralék', body: `${op ? `${capital(operation(op))}: a` : 'A'} hátralék elfogyott${done === undefined ? '' : `, ${counted(done, 'elem', f)} elkészült`}.` };
      },
      many: (count, ns, f) => {
        const ops = distinctParams(ns, 'operation').map(operation);
        return { title: 'Elfogytak a hátralékok', body: `${counted(count, 'hátralék', f)} elfogyott${ops.length > 0 ? `: ${ops.join(', ')}` : ''}.` };
      },
    },
  },
  closedToTray: {
    title: 'A Backlot tovább dolgozik',
    body: 'Az ablak bezárult, de a Backlot a tálcán tovább dolgozik; a tálca menüjéből léphet ki.',
  },
  menu: {
    file: 'Fájl', edit: 'Szerkesztés', view: 'Nézet', window: 'Ablak', help: 'Súgó', go: 'Ugrás',
    settings: 'Beállítások…', closeWindow: 'Ablak bezárása', quit: 'Kilépés a Backlotból', about: 'A Backlot névjegye',
    hide: 'Backlot elrejtése', hideOthers: 'Egyebek elrejtése', showAll: 'Az összes megjelenítése', services: 'Szolgáltatások',
    undo: 'Visszavonás', redo: 'Mégis', cut: 'Kivágás', copy: 'Másolás', paste: 'Beillesztés', selectAll: 'Az összes kijelölése',
    reload: 'Újratöltés', devTools: 'Fejlesztői eszközök', actualSize: 'Eredeti méret', zoomIn: 'Nagyítás', zoomOut: 'Kicsinyítés',
    fullScreen: 'Teljes képernyő', minimize: 'Kis méret', zoom: 'Méretezés', front: 'Az összes előtérbe hozása',
    library: 'Könyvtár', lanes: 'Sávok', runs: 'Futtatások',
  },
};

// Every setting's title and description in Hungarian (issue 20 item 9; docs/i18n.md). The host
// describes its settings in English (settings.list, the CLI); the window shows these instead when
// it speaks Hungarian. Typed against SettingKey, so a setting added without its Hungarian text is a
// compile error. The generated families (engines, lanes, notifications) are written once each.
import type { SettingKey } from '../../../src-shared/settings/settings-schema';
import { CATALOG, type OperationId } from '../../../src-shared/catalog/operations';
import type { LaneKey } from '../../../src-shared/catalog/lanes';
import type { NoticeKind } from '../../../src-shared/notices/notice';
import { hu } from './hu';

export interface SettingText { label: string; description: string }

const engines = (op: OperationId, note = ''): SettingText => ({
  label: `Motorok › ${hu.operations[op]}`,
  description: `A(z) „${hu.operations[op]}” műveletet végző motorok, előnyben részesítési sorrendben: ${CATALOG.find((o) => o.id === op)!.engines.map((e) => e.id).join(', ')} közül bármelyik.${note}`,
});
const slots = (lane: LaneKey): SettingText => ({
  label: `Sávok › ${hu.lanes[lane]} › helyek`,
  description: `A(z) ${hu.lanes[lane]} sáv egyszerre futó helyei; 0 visszatartja a sávot anélkül, hogy megszüntetné.`,
});
const NOTIFY: Record<NoticeKind, string> = {
  'run-failed': 'egy munka az utolsó újrapróbálás után is hibával ért véget',
  'disk-gate-shut': 'a lemezkapu bezárt, mert fogy a szabad hely',
  'disk-full': 'semmit sem lehet írni, mert megtelt a lemez',
  'cooldown-opened': 'egy platform elutasította a Backlotot, és a hálózati sávok várnak',
  'preflight-failed': 'egy sáv nem indulhat, mert a motorjai nem mentek át az ellenőrzésen',
  'spend-cap-reached': 'a távoli munka a költési keretnél megállt',
  'backlog-finished': 'egy művelet hátraléka elfogyott',
};
const notify = (kind: NoticeKind): SettingText => ({ label: `Értesítések › ${hu.notices.kinds[kind]}`, description: `Asztali értesítés, ha ${NOTIFY[kind]}.` });
const s = (label: string, description: string): SettingText => ({ label, description });

export const SETTINGS_HU: Record<SettingKey, SettingText> = {
  'engines.sync': engines('sync'),
  'engines.download': engines('download'),
  'engines.transcribe': engines('transcribe'),
  'engines.diarize': engines('diarize'),
  'engines.attribute-voices': engines('attribute-voices'),
  'engines.attribute-words': engines('attribute-words'),
  'engines.digest': engines('digest', ' Alapból csak az extractive; az openai-compatible vagy a llama-cpp használatához vedd fel őket.'),
  'engines.channel-digest': engines('channel-digest'),
  'lanes.sync.slots': slots('sync'),
  'lanes.download.slots': slots('download'),
  'lanes.gpu.slots': slots('gpu'),
  'lanes.cpu.slots': slots('cpu'),
  'lanes.remote.slots': slots('remote'),
  'diskGate.drainingBelowBytes': s('Lemezkapu › apadás ez alatt', 'Ennél kevesebb szabad bájtnál nem indul új médialetöltés; a futók befejeződnek.'),
  'diskGate.shutBelowBytes': s('Lemezkapu › zárás ez alatt', 'Ennél kevesebb szabad bájtnál minden médiaíró vár; nem lehet nagyobb az apadási küszöbnél.'),
  'diskFull.resumeAboveBytes': s('Tele lemez › folytatás e fölött', 'Miután megtelt a lemez, a munka akkor folytatódik, ha a könyvtár kötetén ennél több bájt szabad.'),
  'retry.maxAttempts': s('Újrapróbálás › legtöbb kísérlet', 'Ennyi kísérlet után egy hibázó elem hibásként félretevődik, amíg újra nem próbálod.'),
  'retry.baseS': s('Újrapróbálás › első várakozás', 'Az első várakozás másodpercben; minden további kísérlet kétszer annyit vár.'),
  'retry.maxS': s('Újrapróbálás › leghosszabb várakozás', 'A leghosszabb várakozás másodpercben; nem lehet kisebb az elsőnél.'),
  'retry.jitter': s('Újrapróbálás › szórás', 'Minden várakozás véletlen szórása, annak hányadaként (0 és 1 között).'),
  quietHours: s('Csendes órák', 'Helyi idősávok, amelyekben egy sáv vár, pl. [{"lane":"download","from":"09:00","to":"17:00","days":[1,2,3,4,5]}].'),
  'spend.capUsd': s('Költés › keret (USD)', 'Legfeljebb ennyit költhetnek a távoli motorok egy költési időszakban; null: nincs keret.'),
  'spend.window': s('Költés › időszak', 'Az időszak, amelyre a költési keret vonatkozik (UTC naptári nap, ISO hét vagy hónap).'),
  'runs.retentionDays': s('Futások › megőrzés (nap)', 'Ennyi napig marad meg egy befejezett futás a naplósoraival.'),
  'sync.defaultIntervalS': s('Szinkron › alap időköz', 'Másodpercek két szinkron között annál a csatornánál, amely nem ad meg saját időközt.'),
  'claims.leaseS': s('Foglalások › élettartam', 'Ennyi másodpercig él megújítás nélkül egy foglalás, mielőtt egy leállt munkás eleme újra szabad.'),
  'engines.stallTimeoutS': s('Motorok › elakadási idő', 'Ennyi másodpercig hallgathat egy motor a haladásáról, mielőtt elakadtként leállítjuk.'),
  'engines.priority': s('Motorok › prioritás', 'A motorfolyamatok processzorprioritása: low (az alapérték) mellett az ablak és a gazdafolyamat akkor is gyors marad, ha a motorok minden magot lefoglalnak, és minden elfoglaltabb program elsőbbséget kap (a sávok oldala ekkor azt írja: „processzorra vár”); normal mellett a gép többi munkájával egyenrangúan versenyeznek (normal-ra visszaállítva a már futó motorok a végükig low szinten maradnak).'),
  'speakers.diarizeThreshold': s('Beszélők › szétválasztási küszöb', 'Koszinusztávolság, amely fölött a beszélőszétválasztás két beszédcsoportot külön beszélőnek tart (kisebb: több beszélő).'),
  'speakers.matchThreshold': s('Beszélők › egyezési küszöb', 'Koszinusz-hasonlóság, amelytől kezdve egy hang egy meglévő beszélőprofilhoz kerül (nagyobb: több új profil).'),
  'digest.remote.baseUrl': s('Összefoglaló › távoli › alap URL', 'Egy OpenAI-kompatibilis API alapcíme (a /chat/completions előtti rész), pl. https://api.openai.com/v1; üresen: nincs beállítva.'),
  'digest.remote.model': s('Összefoglaló › távoli › modell', 'A modell neve, amelyet a távoli összefoglaló kér (pl. gpt-4o-mini); üresen: nincs beállítva.'),
  'digest.remote.apiKey': s('Összefoglaló › távoli › API-kulcs', 'A távoli összefoglaló végpontjának API-kulcsa; csak írható: védetten tárolva, sosem látszik (üres "" értékkel törölhető).'),
  'digest.remote.usdPerMillionInput': s('Összefoglaló › távoli › USD millió bemeneti tokenenként', 'Ennyi USD millió bemeneti tokenenként a távoli modellnél (0: ingyenes, pl. helyi szerver).'),
  'digest.remote.usdPerMillionOutput': s('Összefoglaló › távoli › USD millió kimeneti tokenenként', 'Ennyi USD millió kimeneti tokenenként a távoli modellnél (0: ingyenes, pl. helyi szerver).'),
  'digest.remote.contextTokens': s('Összefoglaló › távoli › kontextus (token)', 'A távoli modell kontextusablaka tokenben; a hosszabb átiratok részenként készülnek, majd összefésülődnek.'),
  'digest.remote.maxOutputTokens': s('Összefoglaló › távoli › legtöbb kimeneti token', 'Legfeljebb ennyi tokennel válaszolhat a távoli modell kérésenként (a max_tokens értéke).'),
  'digest.remote.stream': s('Összefoglaló › távoli › folyamatos válasz', 'A távoli modell folyamatosan küldje a válaszát (server-sent events) az élő haladáshoz; kapcsold ki olyan szervernél, amely nem tudja.'),
  'digest.remote.requestTimeoutS': s('Összefoglaló › távoli › kérés időkorlátja', 'Ennyi másodpercig tarthat egy kérés a távoli modellhez, mielőtt időtúllépésnek számít.'),
  'digest.summarySentences': s('Összefoglaló › mondatok', 'Ennyi mondatból áll egy elem összefoglalója.'),
  'digest.moments': s('Összefoglaló › kulcspillanatok', 'Ennyi kulcspillanatot tart meg egy elem összefoglalója (mindegyiket a beszélőjével és a kezdő idejével).'),
  'digest.channel.period': s('Összefoglaló › csatorna › időszak', 'A csatorna-összefoglaló időszaka (UTC nap, ISO hét vagy hónap): mit mondtak a csatorna ekkor megjelent elemei.'),
  'digest.llama.model': s('Összefoglaló › helyi modell', 'A <data>/models alatti GGUF-fájl, amellyel a helyi nyelvi modell összefoglal; üresen: az első ottani .gguf fájl.'),
  'desktop.closeToTray': s('Asztali alkalmazás › bezárás a tálcára', 'Az ablak bezárása után a Backlot a tálcán dolgozik tovább; kikapcsolva kilép.'),
  'desktop.openAtLogin': s('Asztali alkalmazás › indítás bejelentkezéskor', 'A Backlot a tálcán indul, amikor bejelentkezel.'),
  'notifications.run-failed': notify('run-failed'),
  'notifications.disk-gate-shut': notify('disk-gate-shut'),
  'notifications.disk-full': notify('disk-full'),
  'notifications.cooldown-opened': notify('cooldown-opened'),
  'notifications.preflight-failed': notify('preflight-failed'),
  'notifications.spend-cap-reached': notify('spend-cap-reached'),
  'notifications.backlog-finished': notify('backlog-finished'),
  'download.mediaTemplate': s('Letöltés › fájlnévminta', 'Hová kerül egy letöltés a <data>/media alatt: helyőrzők {channel}, {date}, {title}, {id}, {ext}; a nevek minden rendszeren biztonságossá válnak.'),
  'download.format': s('Letöltés › formátum', 'Mit tölt le a yt-dlp, ha a csatorna nem mondja meg: csak hangot (átírási könyvtárhoz) vagy videót a download.maxHeight magasságig.'),
  'download.maxHeight': s('Letöltés › legnagyobb magasság', 'A legmagasabb videó képpontban, amelyet a yt-dlp videó formátumban letölt.'),
  'download.limitRate': s('Letöltés › sebességkorlát', 'A yt-dlp --limit-rate értéke (bájt másodpercenként, pl. "2M"); null: nincs korlát.'),
  'download.sleepIntervalS': s('Letöltés › várakozás', 'A yt-dlp --sleep-interval értéke: ennyi másodpercet vár minden letöltés előtt.'),
  'download.maxSleepIntervalS': s('Letöltés › leghosszabb várakozás', 'A yt-dlp --max-sleep-interval értéke: vele a várakozás véletlen a kettő között; nem lehet kisebb a download.sleepIntervalS értékénél (0: állandó várakozás).'),
  'download.cookiesFile': s('Letöltés › sütifájl', 'Netscape-formátumú sütifájl, amelyet a yt-dlp elküld (bejelentkezett fiók); null: nincs.'),
  'ytdlp.path': s('yt-dlp › útvonal', 'A használandó yt-dlp program, ha a projekt saját példánya (.venv-engines) hiányzik; null: a PATH-on keresi.'),
  'feeds.maxBytes': s('Hírcsatornák › legnagyobb méret', 'A legnagyobb hírcsatorna-dokumentum bájtban, amelyet a Backlot beolvas; a nagyobbnál a szinkron túl nagyként hibát ad.'),
  'http.maxRedirects': s('HTTP › legtöbb átirányítás', 'Ennyi átirányítást követ egy hírcsatorna-lekérés vagy közvetlen letöltés, mielőtt feladja; minden célt újra ellenőriz.'),
  'politeness.minIntervalS': s('Udvariasság › legkisebb időköz', 'Legalább ennyi másodperc két letöltés indítása között (plusz szórás).'),
  'politeness.jitter': s('Udvariasság › szórás', 'Véletlen ráadás a legkisebb időközre, annak hányadaként (0 és 1 között).'),
  'politeness.perHostConcurrency': s('Udvariasság › egyidejű letöltés kiszolgálónként', 'Ennyi letöltés futhat egyszerre egy kiszolgálóról.'),
  'politeness.dailyCaps': s('Udvariasság › napi keretek', 'Legtöbb letöltés UTC naponként platformonként (youtube, vimeo, …) vagy hírcsatorna-kiszolgálónként, elemben és/vagy bájtban, pl. {"youtube":{"items":50,"bytes":20000000000}}.'),
  'politeness.cooldownBaseS': s('Udvariasság › első pihenő', 'Az első pihenő másodpercben, miután egy platform elutasít (429, robotellenőrzés); minden újabb elutasítás megduplázza.'),
  'politeness.cooldownMaxS': s('Udvariasság › leghosszabb pihenő', 'A leghosszabb pihenő másodpercben; nem lehet kisebb a politeness.cooldownBaseS értékénél.'),
  'folders.watchDebounceMs': s('Mappák › csend a beolvasás előtt', 'Ennyi ezredmásodpercig kell csendesnek lennie egy figyelt mappának egy változás után, mielőtt a beolvasása indul.'),
  'subtitles.maxLineChars': s('Feliratok › karakter soronként', 'Legfeljebb ennyi karakter egy feliratsorban (SRT és VTT export); a hosszabb szakasz több feliratra oszlik.'),
  'subtitles.maxLines': s('Feliratok › sorok feliratonként', 'Legfeljebb ennyi sor egy feliratban (SRT és VTT export).'),
  'subtitles.maxCueS': s('Feliratok › leghosszabb felirat', 'Legfeljebb ennyi másodpercig marad a képen egy felirat; a hosszabb beszéd több feliratra oszlik.'),
  'transcribe.chunkS': s('Átírás › darab hossza', 'Ennyi másodpercnyi média egy átírási darab; mindegyik után ellenőrzőpont készül, így a megszakított átírás ott folytatódik.'),
  'transcribe.pocketsphinxDecoder': s('Átírás › pocketsphinx dekóder', 'Melyik pocketsphinx dekóder fut: auto (a legjobb telepített), wheel-decoder, debian-decoder-wheel-model vagy debian-decoder.'),
  'models.baseUrl': s('Modellek › forrás', 'Honnan tölti le a `backlot models add NÉV` a katalógus modelljeit: az eredeti kiszolgálóról vagy egy tükörről, amely ugyanazokat az útvonalakat adja.'),
  'transcribe.whisperModel': s('Átírás › whisper modell', 'A telepített modell (backlot models list), amellyel a whisper.cpp átír.'),
  'transcripts.source': s('Átiratok › forrás', 'Kinek az átiratát kapja egy elem: prefer-source (a kiadó vagy a platform sajátját, ha kínál ilyet, különben egy helyi motorét), local-only, vagy both (a forrás átirata az elemé, mellette egy helyi is megmarad). Egy csatorna sajátot is megadhat.'),
  'transcripts.autoCaptions': s('Átiratok › automatikus feliratok', 'A platform automatikus feliratait is használja, ha nincs ember készítette felirat (platformelemek; egy csatorna sajátot is megadhat).'),
  'transcribe.prompt': s('Átírás › szókincs', 'Nevek és szakszavak, amelyeket a whisper.cpp kezdő promptként kap, hogy helyesen írja le őket (egy csatorna a parancssorban sajátot is megadhat); üresen: nincs.'),
  'transcribe.language': s('Átírás › nyelv', 'A beszéd nyelve a whisper.cpp számára (auto: felismeri); a pocketsphinx modellje csak amerikai angol.'),
  'transcribe.cpuThreads': s('Átírás › CPU-szálak', 'Ennyi szálat használhat egy whisper.cpp feladat a processzoron.'),
  'transport.redisUrl': s('Átvitel › Redis URL', 'A készletek által használt Redis adminisztrátori címe (jelszó nélkül: az a transport.redisPassword); üresen: nincs átvitel. A backlot transport serve rögzíti.'),
  'transport.redisPassword': s('Átvitel › Redis jelszó', 'A transport.redisUrl Redis adminisztrátorának jelszava (csak írható).'),
  'transport.redisCaFile': s('Átvitel › Redis hitelesítésszolgáltató', 'A Redis TLS-tanúsítványát aláíró hitelesítésszolgáltató PEM-fájlja (önaláírtnál maga a tanúsítvány); üresen: a rendszer hitelesítői.'),
  'pools.workerListen': s('Készletek › munkásajtó', 'A munkásajtó HOST:PORT címe, ahonnan a készlet munkásai médiát töltenek le és ahová kimenetet töltenek fel; a készlettel rendelkező ütemező gazda nyitja meg, és bekerül a csatlakozási fájlokba.'),
};

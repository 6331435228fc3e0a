// The bridge between the sandboxed window and the host: `window.backlot` with one call per API
// method and a host-event stream. It forwards and validates nothing itself; main does that.
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import type { ApiMethod } from '../../src-shared/api/contract';
import { readHostEventDetail, readHostEventFrame } from '../../src-shared/api/host-events';
import type { ApiOutcome, BacklotBridge } from '../../src-shared/api/bridge';
import type { NoticeTarget } from '../../src-shared/notices/notice';
import { API_CHANNEL, EVENT_CHANNEL, NAVIGATE_CHANNEL, PICK_FOLDER_CHANNEL } from '../shells/electron/channels';

const bridge: BacklotBridge = {
  call<M extends ApiMethod>(method: M, payload: unknown): Promise<ApiOutcome<M>> {
    return ipcRenderer.invoke(API_CHANNEL, method, payload) as Promise<ApiOutcome<M>>;
  },
  onEvent(listener) {
    // Main sends the contract's wire form (hostEventFrame), as the headless shell's socket does.
    const forward = (_event: IpcRendererEvent, frame: unknown) => {
      const hostEvent = readHostEventFrame(frame);
      if (hostEvent !== null) listener(hostEvent, readHostEventDetail(frame));
    };
    ipcRenderer.on(EVENT_CHANNEL, forward);
    return () => {
      ipcRenderer.off(EVENT_CHANNEL, forward);
    };
  },
  onNavigate(listener) {
    const forward = (_event: IpcRendererEvent, target: NoticeTarget) => listener(target);
    ipcRenderer.on(NAVIGATE_CHANNEL, forward);
    return () => {
      ipcRenderer.off(NAVIGATE_CHANNEL, forward);
    };
  },
  pickFolder() {
    return ipcRenderer.invoke(PICK_FOLDER_CHANNEL) as Promise<string | null>;
  },
};

contextBridge.exposeInMainWorld('backlot', bridge);

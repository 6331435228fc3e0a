// The bridge between the sandboxed window and the host: `window.backlot` with one call per API
// method and a host-event stream. It forwards and validates nothing itself; main does that.
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import type { ApiMethod, HostEvent, HostEventDetail } from '../../src-shared/api/contract';
import type { ApiOutcome, BacklotBridge } from '../../src-shared/api/bridge';
import { API_CHANNEL, EVENT_CHANNEL } from '../shells/electron/channels';

const bridge: BacklotBridge = {
  call<M extends ApiMethod>(method: M, payload: unknown): Promise<ApiOutcome<M>> {
    return ipcRenderer.invoke(API_CHANNEL, method, payload) as Promise<ApiOutcome<M>>;
  },
  onEvent(listener) {
    const forward = (_event: IpcRendererEvent, hostEvent: HostEvent, detail?: HostEventDetail) => listener(hostEvent, detail);
    ipcRenderer.on(EVENT_CHANNEL, forward);
    return () => {
      ipcRenderer.off(EVENT_CHANNEL, forward);
    };
  },
};

contextBridge.exposeInMainWorld('backlot', bridge);

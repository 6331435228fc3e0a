// What a shell hands the window: one call per contract method and a stream of host events. The
// Electron preload and the renderer's HTTP client both produce exactly this shape, so the app
// above them cannot tell which shell it runs in.
import type { ApiErrorDto, ApiMethod, ApiRequest, ApiResponse, HostEvent, HostEventDetail } from './contract';
import type { NoticeTarget } from '../notices/notice';

/** A call's outcome as data: errors cross IPC and HTTP intact only as plain objects. */
export type ApiOutcome<M extends ApiMethod> =
  | { ok: true; result: ApiResponse<M> }
  | { ok: false; error: ApiErrorDto };

export interface BacklotBridge {
  call<M extends ApiMethod>(method: M, payload: ApiRequest<M>): Promise<ApiOutcome<M>>;
  /** Returns the function that stops listening. `detail` says what changed, when the host knows. */
  onEvent(listener: (event: HostEvent, detail?: HostEventDetail) => void): () => void;
  /**
   * The desktop shell asks the window to show a view (a notification or a menu item was clicked).
   * Absent in the headless shell, where nothing outside the page navigates it.
   */
  onNavigate?(listener: (target: NoticeTarget) => void): () => void;
  /**
   * The desktop shell's native folder picker (the Library's "Add a folder"): a path, or null when
   * the user cancelled. Absent in the headless shell, where the window asks for a typed path.
   */
  pickFolder?(): Promise<string | null>;
}

// Types the window's code sees from its surroundings: .vue modules, and the preload bridge that
// exists only inside the desktop app.
import type { BacklotBridge } from '../../src-shared/api/bridge';

declare module '*.vue' {
  import type { DefineComponent } from 'vue';
  const component: DefineComponent<object, object, unknown>;
  export default component;
}

declare global {
  interface Window {
    backlot?: BacklotBridge;
  }
}

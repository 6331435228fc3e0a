// The window's views as routes on the URL hash (#/library, #/item/<id>, #/runs/12 ...), the same
// hashes the desktop shell's notifications and menus navigate to (src-shared/api/navigation.ts).
// Each view has a title for the document, and focus moves to its heading when it opens.
import { createRouter, createWebHashHistory, type RouteRecordRaw } from 'vue-router';
import LibraryView from './views/LibraryView.vue';
import ItemView from './views/ItemView.vue';
import LanesView from './views/LanesView.vue';
import RunsView from './views/RunsView.vue';
import SearchView from './views/SearchView.vue';
import SpeakersView from './views/SpeakersView.vue';
import PoolsView from './views/PoolsView.vue';
import NotFoundView from './views/NotFoundView.vue';

declare module 'vue-router' {
  interface RouteMeta {
    /** The i18n key of the view's name (views.*). */
    title: string;
  }
}

export const routes: RouteRecordRaw[] = [
  { path: '/', redirect: '/library' },
  { path: '/library/:channel?', name: 'library', component: LibraryView, meta: { title: 'views.library' } },
  { path: '/item/:item', name: 'item', component: ItemView, meta: { title: 'views.item' } },
  { path: '/lanes/:lane?', name: 'lanes', component: LanesView, meta: { title: 'views.lanes' } },
  // The two heaviest views load their code (the chart library, the settings schemas) when opened.
  { path: '/pools', name: 'pools', component: PoolsView, meta: { title: 'views.pools' } },
  { path: '/rules', name: 'rules', component: () => import('./views/RulesView.vue'), meta: { title: 'views.rules' } },
  { path: '/runs/:run?', name: 'runs', component: RunsView, meta: { title: 'views.runs' } },
  { path: '/search', name: 'search', component: SearchView, meta: { title: 'views.search' } },
  { path: '/speakers', name: 'speakers', component: SpeakersView, meta: { title: 'views.speakers' } },
  { path: '/settings/:key?', name: 'settings', component: () => import('./views/SettingsView.vue'), meta: { title: 'views.settings' } },
  { path: '/:rest(.*)*', name: 'not-found', component: NotFoundView, meta: { title: 'app.notFound' } },
];

export function createWindowRouter() {
  return createRouter({ history: createWebHashHistory(), routes });
}

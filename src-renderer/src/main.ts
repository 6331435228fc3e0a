// The window's entry: one API client (preload bridge or HTTP), Pinia, the router and the languages.
import { createApp } from 'vue';
import { createPinia } from 'pinia';
import App from './App.vue';
import { API_CLIENT, createClient } from './api/client';
import { followShellNavigation } from './api/navigation';
import { createWindowRouter } from './router';
import { createWindowI18n, I18N_KEY } from './i18n';
import { vViewHeading } from './heading-focus';
import './theme';
import './style.css';

// The client first: in the headless shell it takes the token out of the address before the router reads it.
const client = createClient();
const i18n = createWindowI18n();
createApp(App).provide(API_CLIENT, client).provide(I18N_KEY, i18n).use(createPinia()).use(i18n).use(createWindowRouter()).directive('view-heading', vViewHeading).mount('#app');
followShellNavigation(window);

// The window's entry: one API client (preload bridge or HTTP), one Pinia, one root component.
import { createApp } from 'vue';
import { createPinia } from 'pinia';
import App from './App.vue';
import { API_CLIENT, createClient } from './api/client';
import { followShellNavigation } from './api/navigation';
import './style.css';

createApp(App).provide(API_CLIENT, createClient()).use(createPinia()).mount('#app');
followShellNavigation(window);

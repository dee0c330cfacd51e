// The renderer's routes. Hash history, because the desktop app loads the page from file:// where
// path-based history cannot work, and the browser mode then shares the same links (#/runs/7).
import { createRouter, createWebHashHistory, type RouteLocationNormalized, type RouteRecordRaw } from 'vue-router';

// The Runs view, where the app opens, comes with the first page (its modules preloaded in
// parallel, not one after another); every other view is its own chunk, fetched when first opened,
// so the charts library comes only with the views that draw charts.
import RunsView from './views/RunsView.vue';
const RunView = () => import('./views/RunView.vue');
const CheckpointsView = () => import('./views/CheckpointsView.vue');
const CompareView = () => import('./views/CompareView.vue');
const ReplayView = () => import('./views/ReplayView.vue');

/** `:id` as the positive run id the views take; NaN for anything else, which the views report. */
export function runIdParam(route: RouteLocationNormalized): { runId: number } {
  const raw = route.params.id;
  return { runId: Number(Array.isArray(raw) ? raw[0] : raw) };
}

export const routes: RouteRecordRaw[] = [
  { path: '/', redirect: '/runs' },
  { path: '/runs', name: 'runs', component: RunsView },
  { path: '/runs/:id(\\d+)', name: 'run', component: RunView, props: runIdParam },
  { path: '/runs/:id(\\d+)/checkpoints', name: 'checkpoints', component: CheckpointsView, props: runIdParam },
  { path: '/compare', name: 'compare', component: CompareView },
  { path: '/runs/:id(\\d+)/replay', name: 'replay', component: ReplayView, props: runIdParam },
  // Other views add their routes above this line.
  { path: '/:unknown(.*)*', redirect: '/runs' },
];

export const router = createRouter({ history: createWebHashHistory(), routes });

// A view writes its state (filters, panels, the iteration shown) into the address with
// router.replace. Some writes follow an answer from the server; if the reader has gone to
// another view by the time it arrives, writing it would take them back to the view they left.
import type { LocationQueryRaw, Router } from 'vue-router';

/** Replaces the address's query, only while the address is still at `path`. */
export function replaceQueryAt(router: Router, path: string, query: LocationQueryRaw): void {
  if (router.currentRoute.value.path !== path) return;
  void router.replace({ path, query });
}

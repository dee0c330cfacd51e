// The Runs table's rows, a page at a time from the server (TurnLabApi.runPage): the first page
// on each change of filters or sort, the next as the reader scrolls to the end or asks for more.
// Answers to a request overtaken by a newer one are dropped.
import { computed, ref, shallowRef, watch, type Ref } from 'vue';
import type { RunFilterChoicesDto, RunPageQueryDto, RunRowDto, UnknownRunColumnDto } from '../../../preload/contract';
import { api } from '../api';

export const RUN_PAGE_STEP = 100;
/** The most rows a refresh asks for in one page (the server's limit). */
const REFRESH_LIMIT = 1000;

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export function useRunPage(query: Ref<RunPageQueryDto>) {
  const rows = shallowRef<RunRowDto[]>([]);
  const total = ref(0);
  const loaded = ref(false);
  const error = ref<string | null>(null);
  const choices = ref<RunFilterChoicesDto>({ status: [], env: [], algorithm: [], tag: [] });
  const seedGroupRuns = shallowRef<RunRowDto[]>([]);
  /** Runs in the store, whatever the filters: the empty-store message needs it. */
  const anyRuns = ref(false);
  /** The conditions' columns no run has, when none matched them. */
  const unknownColumns = shallowRef<UnknownRunColumnDto[]>([]);
  let asked = 0;

  /**
   * The first rows for the current query (as many as are drawn now when `keep`, so a refresh
   * after an event does not shrink the table the reader scrolled), with the filter choices.
   */
  async function load(keep = false): Promise<void> {
    const ticket = ++asked;
    const limit = keep ? Math.min(REFRESH_LIMIT, Math.max(RUN_PAGE_STEP, rows.value.length)) : RUN_PAGE_STEP;
    try {
      // The choices and seed groups change only as runs come and go: asked on the first load
      // and on refreshes, not on each filter or sort.
      const page = await api.runPage({ ...query.value, offset: 0, limit, withChoices: keep || !loaded.value });
      if (ticket !== asked) return;
      rows.value = page.rows;
      total.value = page.total;
      unknownColumns.value = page.unknownColumns ?? [];
      if (page.choices) {
        choices.value = page.choices;
        anyRuns.value = page.choices.status.length > 0;
      }
      if (page.seedGroupRuns) seedGroupRuns.value = page.seedGroupRuns;
      error.value = null;
    } catch (caught) {
      if (ticket === asked) error.value = messageOf(caught);
    } finally {
      if (ticket === asked) loaded.value = true;
    }
  }

  let more: Promise<void> | null = null;
  /** The next page after the rows drawn; one request at a time. */
  function showMore(): Promise<void> {
    if (more || rows.value.length >= total.value) return more ?? Promise.resolve();
    const ticket = asked;
    more = api
      .runPage({ ...query.value, offset: rows.value.length, limit: RUN_PAGE_STEP })
      .then((page) => {
        if (ticket !== asked) return;
        rows.value = [...rows.value, ...page.rows];
        total.value = page.total;
      })
      .catch((caught) => {
        if (ticket === asked) error.value = messageOf(caught);
      })
      .finally(() => (more = null));
    return more;
  }

  const hidden = computed(() => Math.max(0, total.value - rows.value.length));
  watch(() => JSON.stringify(query.value), () => void load());

  return { rows, total, hidden, loaded, error, choices, seedGroupRuns, anyRuns, unknownColumns, load, showMore };
}

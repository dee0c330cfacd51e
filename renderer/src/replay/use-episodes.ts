// The Replay view's episodes: the filtered list of the iteration or evaluation shown, the
// selected episode's turns and replay settings, its re-run for the state after the last action,
// an explicit re-simulation, and the other members of its group.
import { computed, ref, watch } from 'vue';
import type { EpisodeDto, EpisodeFilterDto, ReplaySettingsDto, ResimulationDto, TurnDto } from '../../../preload/contract';
import { api } from '../api';
import { groupEpisodes, groupMember, type GroupMember } from './group';
import type { ReplayFilters } from './route';
import { describeError, type ReplaySource } from './use-source';

export function useReplayEpisodes(runId: () => number, source: ReplaySource) {
  const { query, iteration, evaluationId, error, navigate } = source;
  const episodes = ref<EpisodeDto[]>([]);
  const loadingEpisodes = ref(false);
  const turns = ref<TurnDto[]>([]);
  const settings = ref<ReplaySettingsDto | null>(null);
  const settingsNote = ref<string | null>(null);
  // The filters and the group view live in the address, as the episode shown does.
  const showGroup = computed({ get: () => query.value.showGroup, set: (on: boolean) => navigate({ showGroup: on }) });
  const groupMembers = ref<GroupMember[]>([]);
  const resimulation = ref<ResimulationDto | null>(null);
  const resimulating = ref(false);
  const resimulateError = ref<string | null>(null);
  /**
   * The episode re-run from its seed as soon as it opens: the store keeps each turn's state before
   * it, so the state after the last action comes from here.
   */
  const ending = ref<ResimulationDto | null>(null);
  const endingError = ref<string | null>(null);
  const filter = <K extends keyof ReplayFilters>(key: K) =>
    computed({
      get: () => query.value.filters[key],
      set: (value: ReplayFilters[K]) => navigate({ filters: { ...query.value.filters, [key]: value } }),
    });
  const filters = { split: filter('split'), outcome: filter('outcome'), group: filter('group'), tag: filter('tag') };

  const selectedEpisode = computed(() => episodes.value.find((e) => e.id === query.value.episode) ?? null);
  // An episode the address asked for as the view opened that is not among those listed (a mistyped
  // id, another iteration's or run's): the first is shown instead, and the note says so until
  // another is picked. Later, a filter that leaves the episode out just moves to the first.
  const missedEpisode = ref<{ wanted: number; shown: number } | null>(null);
  let openingLoad = true;
  // An episode typed into the address while a list loads (the list reloads as the address is
  // rewritten): that load settles it, and says so as for one asked for on opening.
  let askedWhileLoading = false;
  const episodeNote = computed(() => {
    const missed = missedEpisode.value;
    if (missed === null || query.value.episode !== missed.shown) return null;
    const where = evaluationId.value !== null ? `evaluation #${evaluationId.value}` : `iteration ${iteration.value}`;
    return `Episode ${missed.wanted} is not among the episodes listed (${where}, with the filters set); showing episode ${missed.shown}, the first.`;
  });

  function currentFilter(): EpisodeFilterDto {
    const filter: EpisodeFilterDto = {};
    if (filters.split.value) filter.split = filters.split.value;
    if (filters.outcome.value) filter.success = filters.outcome.value === 'success';
    if (filters.group.value !== '') filter.groupId = Number(filters.group.value);
    if (filters.tag.value) filter.envTag = filters.tag.value;
    return filter;
  }

  /** The episodes of the evaluation shown, or of the run at one iteration. */
  function fetchEpisodes(filter: EpisodeFilterDto, at: number): Promise<EpisodeDto[]> {
    const evaluationShown = evaluationId.value;
    return evaluationShown !== null ? api.listEvaluationEpisodes(evaluationShown, filter) : api.listEpisodes(runId(), at, filter);
  }

  /** Shows the first episode listed when the address names none, or one not listed (said when the address asked for it). */
  function settleEpisode(askedByAddress: boolean): void {
    const list = episodes.value;
    const current = query.value.episode;
    if (list.length === 0 || (current !== null && list.some((e) => e.id === current))) return;
    if (askedByAddress && current !== null) missedEpisode.value = { wanted: current, shown: list[0].id };
    navigate({ iteration: evaluationId.value === null ? iteration.value : null, episode: list[0].id, turn: 0 });
  }

  async function loadEpisodes(): Promise<void> {
    const it = iteration.value;
    if (it === null) return;
    const shown = evaluationId.value;
    loadingEpisodes.value = true;
    try {
      const list = await fetchEpisodes(currentFilter(), it);
      if (it !== iteration.value || shown !== evaluationId.value) return;
      episodes.value = list;
      settleEpisode(openingLoad || askedWhileLoading);
      openingLoad = false;
      askedWhileLoading = false;
    } catch (e) {
      error.value = describeError(e);
    } finally {
      loadingEpisodes.value = false;
    }
  }

  async function loadSettings(envTag: string): Promise<void> {
    if (settings.value?.envTag === envTag) return;
    settings.value = null;
    settingsNote.value = null;
    try {
      settings.value = await api.replaySettings(runId(), envTag);
    } catch (e) {
      // The view still works without them; validity then comes from the stored counts.
      settingsNote.value = `Action names unavailable (${describeError(e)}); validity is read from the stored counts.`;
    }
  }

  /** Re-runs the episode in the background for its final state; the view works without it. */
  async function loadEnding(episode: EpisodeDto): Promise<void> {
    try {
      const result = await api.resimulateEpisode(episode.id);
      if (query.value.episode === episode.id) ending.value = result;
    } catch (e) {
      if (query.value.episode === episode.id) endingError.value = describeError(e);
    }
  }

  async function loadEpisode(episode: EpisodeDto | null): Promise<void> {
    turns.value = [];
    resimulation.value = null;
    resimulateError.value = null;
    ending.value = null;
    endingError.value = null;
    if (!episode) return;
    void loadEnding(episode);
    try {
      const [list] = await Promise.all([api.episodeTurns(episode.id), loadSettings(episode.envTag)]);
      if (query.value.episode === episode.id) turns.value = list;
    } catch (e) {
      error.value = describeError(e);
    }
    if (showGroup.value) void loadGroup();
  }

  async function loadGroup(): Promise<void> {
    const episode = selectedEpisode.value;
    if (!episode) {
      groupMembers.value = [];
      return;
    }
    try {
      const members = groupEpisodes(
        await fetchEpisodes({ split: episode.split, groupId: episode.groupId }, episode.iteration),
        episode.split,
        episode.groupId,
      );
      // A member whose environment cannot be rebuilt still shows its boards, without the last one.
      const [turnLists, endings] = await Promise.all([
        Promise.all(members.map((m) => api.episodeTurns(m.id))),
        Promise.all(members.map((m) => api.resimulateEpisode(m.id).catch(() => null))),
      ]);
      groupMembers.value = members.map((m, i) => groupMember(m, turnLists[i], endings[i]?.finalState ?? null));
    } catch (e) {
      error.value = describeError(e);
    }
  }

  async function resimulate(): Promise<void> {
    const episode = selectedEpisode.value;
    if (!episode) return;
    resimulating.value = true;
    resimulateError.value = null;
    try {
      resimulation.value = ending.value?.episodeId === episode.id ? ending.value : await api.resimulateEpisode(episode.id);
    } catch (e) {
      resimulateError.value = describeError(e);
    } finally {
      resimulating.value = false;
    }
  }

  watch(runId, () => {
    episodes.value = [];
    turns.value = [];
    missedEpisode.value = null;
    openingLoad = true;
    askedWhileLoading = false;
  });
  // An address without an episode (a link to an iteration, followed in the open view) selects the first again.
  watch([iteration, evaluationId, filters.split, filters.outcome, filters.group, filters.tag, () => query.value.episode === null], () => void loadEpisodes());
  // An episode typed into the address while the view is open; one that comes with another
  // iteration, evaluation or filter waits for that list (loadEpisodes settles it).
  const listShown = () => JSON.stringify([iteration.value, evaluationId.value, query.value.filters]);
  watch(
    () => [query.value.episode, listShown()] as const,
    ([episode, list], [, previousList]) => {
      if (episode === null || list !== previousList) return;
      if (loadingEpisodes.value) askedWhileLoading = true;
      else settleEpisode(true);
    },
  );
  watch(selectedEpisode, (episode, previous) => {
    if (episode?.id !== previous?.id) void loadEpisode(episode);
  });
  watch(showGroup, (on) => {
    if (on) void loadGroup();
  });

  return {
    ...filters, episodes, loadingEpisodes, selectedEpisode, episodeNote, turns, settings, settingsNote, ending, endingError,
    resimulation, resimulating, resimulateError, resimulate, showGroup, groupMembers,
  };
}

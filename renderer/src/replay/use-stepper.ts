// Stepping through the selected episode: the turn lives in the URL query; the arrows and space
// step and play (the stepper owns those keys), and play advances on a timer.
import { computed, onBeforeUnmount, onMounted, ref, watch, type Ref } from 'vue';
import type { EpisodeDto, ResimulationDto, TurnDto } from '../../../preload/contract';
import { clampTurn, stepperCommand } from './keys';
import { runningReturns } from './reply';
import type { ReplaySource } from './use-source';

const PLAY_INTERVAL_MS = 900;

export function useReplayStepper(
  source: ReplaySource,
  episode: { turns: Ref<TurnDto[]>; ending: Ref<ResimulationDto | null>; selectedEpisode: Readonly<Ref<EpisodeDto | null>> },
) {
  const { query, navigate } = source;
  const { turns, ending } = episode;
  const playing = ref(false);
  /** Stepper positions: every turn, then the state after the last action once it is known. */
  const positions = computed(() => turns.value.length + (ending.value && turns.value.length > 0 ? 1 : 0));
  const turnIndex = computed(() => clampTurn(query.value.turn, positions.value));

  function step(delta: number): void {
    if (turns.value.length === 0) return;
    navigate({ turn: clampTurn(turnIndex.value + delta, positions.value) });
  }

  let timer: ReturnType<typeof setInterval> | null = null;
  function stopTimer(): void {
    if (timer !== null) clearInterval(timer);
    timer = null;
  }
  watch(playing, (on) => {
    stopTimer();
    if (!on) return;
    // Playing from the last turn starts over.
    if (turnIndex.value >= positions.value - 1) navigate({ turn: 0 });
    timer = setInterval(() => {
      if (turnIndex.value >= positions.value - 1) playing.value = false;
      else step(1);
    }, PLAY_INTERVAL_MS);
  });
  // Another episode starts paused.
  watch(episode.selectedEpisode, (next, previous) => {
    if (next?.id !== previous?.id) playing.value = false;
  });

  function onKey(event: KeyboardEvent): void {
    const target = event.target as HTMLElement | null;
    const command = stepperCommand(event.key, target?.tagName, event.altKey || event.ctrlKey || event.metaKey);
    if (command === null || turns.value.length === 0) return;
    // A focused button would also take space/arrows as a click; the stepper owns these keys.
    event.preventDefault();
    if (command === 'previous') {
      playing.value = false;
      step(-1);
    } else if (command === 'next') {
      playing.value = false;
      step(1);
    } else {
      playing.value = !playing.value;
    }
  }
  onMounted(() => window.addEventListener('keydown', onKey));
  onBeforeUnmount(() => {
    window.removeEventListener('keydown', onKey);
    stopTimer();
  });

  return {
    playing,
    positions,
    turnIndex,
    step,
    currentTurn: computed(() => turns.value[turnIndex.value] ?? null),
    atEnd: computed(() => ending.value !== null && turns.value.length > 0 && turnIndex.value === turns.value.length),
    returns: computed(() => runningReturns(turns.value.map((t) => t.reward))),
  };
}

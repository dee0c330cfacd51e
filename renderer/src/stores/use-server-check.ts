// Asks the server a question about what the form holds (a config check, a sweep check) a moment
// after the last edit, keeping only the answer to the latest question.
import { ref, watch, type Ref } from 'vue';

const SETTLE_MS = 250;

export interface ServerCheck<A> {
  answer: Ref<A>;
  /** True from an edit until its answer is in: Start waits for it. */
  pending: Ref<boolean>;
}

/**
 * `request` gives null while there is nothing worth asking (the form has problems of its own);
 * the answer is then `none`. A failed call answers `failed(message)`.
 */
export function useServerCheck<Q, A>(request: () => Q | null, ask: (question: Q) => Promise<A>, none: A, failed: (message: string) => A): ServerCheck<A> {
  const answer = ref(none) as Ref<A>;
  const pending = ref(false);
  let asked = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  watch(
    () => JSON.stringify(request()),
    () => {
      clearTimeout(timer);
      const question = request();
      const ticket = ++asked;
      pending.value = question !== null;
      // The last answer stays in view while the next is asked, so nothing flickers.
      if (question === null) {
        answer.value = none;
        return;
      }
      timer = setTimeout(() => {
        ask(question).then(
          (answered) => {
            if (ticket === asked) answer.value = answered;
          },
          (error: unknown) => {
            if (ticket === asked) answer.value = failed(error instanceof Error ? error.message : String(error));
          },
        ).finally(() => {
          if (ticket === asked) pending.value = false;
        });
      }, SETTLE_MS);
    },
    { immediate: true },
  );
  return { answer, pending };
}

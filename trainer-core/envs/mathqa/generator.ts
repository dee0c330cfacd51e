import type { Rng } from '../../rng';

export interface MathProblem {
  question: string;
  answer: string;
}

const NAMES = ['Ava', 'Ben', 'Chloe', 'Dev', 'Elena', 'Farid', 'Grace', 'Hiro', 'Ines', 'Jonas', 'Kemi', 'Liam', 'Mei', 'Noah'];
const ITEMS = ['apples', 'marbles', 'stickers', 'pencils', 'cookies', 'stamps', 'shells', 'cards'];
const GOODS = ['notebook', 'sandwich', 'ticket', 'toy car', 'plant', 'mug'];

type Template = (rng: Rng) => MathProblem | null;

// Each template draws its own numbers so the answer is a whole number by construction.
const TEMPLATES: Template[] = [
  (rng) => {
    const name = rng.choice(NAMES);
    const item = rng.choice(ITEMS);
    const a = rng.intBetween(5, 60);
    const b = rng.intBetween(2, 40);
    const c = rng.intBetween(1, a + b - 1);
    return {
      question: `${name} has ${a} ${item}. ${name} gets ${b} more and then gives ${c} to a friend. How many ${item} does ${name} have now?`,
      answer: String(a + b - c),
    };
  },
  (rng) => {
    const item = rng.choice(ITEMS);
    const a = rng.intBetween(3, 24);
    const b = rng.intBetween(2, 15);
    return { question: `A box holds ${a} ${item}. How many ${item} are there in ${b} such boxes?`, answer: String(a * b) };
  },
  (rng) => {
    const name = rng.choice(NAMES);
    const item = rng.choice(ITEMS);
    const each = rng.intBetween(2, 20);
    const friends = rng.intBetween(2, 9);
    return {
      question: `${name} shares ${each * friends} ${item} equally among ${friends} friends. How many ${item} does each friend get?`,
      answer: String(each),
    };
  },
  (rng) => {
    const name = rng.choice(NAMES);
    const good = rng.choice(GOODS);
    const price = rng.intBetween(2, 30);
    const count = rng.intBetween(1, 6);
    const bill = [10, 20, 50, 100].find((b) => b >= price * count);
    if (bill === undefined) return null;
    return {
      question: `A ${good} costs $${price}. ${name} buys ${count} of them and pays with a $${bill} bill. How many dollars of change does ${name} get?`,
      answer: String(bill - price * count),
    };
  },
  (rng) => {
    const name = rng.choice(NAMES);
    const pages = rng.intBetween(3, 40);
    const weeks = rng.intBetween(1, 4);
    return {
      question: `${name} reads ${pages} pages every day. How many pages does ${name} read in ${weeks} week${weeks > 1 ? 's' : ''}?`,
      answer: String(pages * 7 * weeks),
    };
  },
  (rng) => {
    const item = rng.choice(ITEMS);
    const children = rng.intBetween(2, 6);
    const each = rng.intBetween(1, 12);
    const taken = rng.intBetween(1, 20);
    return {
      question: `There are ${taken + children * each} ${item} in a basket. ${taken} are taken away and the rest are shared equally among ${children} children. How many ${item} does each child get?`,
      answer: String(each),
    };
  },
];

/** A seeded arithmetic word problem with a whole-number answer, so MathQA runs with no download. */
export function generateMathProblem(rng: Rng): MathProblem {
  for (;;) {
    const problem = rng.choice(TEMPLATES)(rng);
    if (problem) return problem;
  }
}

import "server-only";
// Common and trivial passwords are refused wherever a password is set (the users API, `bootdeck user`,
// `bootdeck setup`): zxcvbn-ts estimates how many guesses a password takes, with its dictionaries of
// common passwords, names and English words, and its repeat, sequence, keyboard and date patterns.
import { ZxcvbnFactory } from "@zxcvbn-ts/core";
import * as common from "@zxcvbn-ts/language-common";
import * as en from "@zxcvbn-ts/language-en";

/** zxcvbn's scale: 3 is "safely unguessable: moderate protection from an offline slow-hash attack". */
export const minPasswordScore = 3;

let factory: ZxcvbnFactory | undefined;
const estimator = () =>
  (factory ??= new ZxcvbnFactory({ dictionary: { ...common.dictionary, ...en.dictionary }, graphs: common.adjacencyGraphs, translations: en.translations }));

/** Why the password is too easy to guess, or undefined when it is strong enough. */
export function weakPasswordProblem(password: string, userInputs: string[] = []): string | undefined {
  const r = estimator().check(password, userInputs);
  if (r.score >= minPasswordScore) return undefined;
  const why = r.feedback.warning ?? r.feedback.suggestions[0];
  return `is too easy to guess${why ? `: ${why.replace(/\.$/, "")}` : ""}; use a longer passphrase or a generated password`;
}

import { stem } from './search-text.js';

/** Words an assistant uses for what an API calls otherwise; each group's words stand for one another. */
const SYNONYM_GROUPS = [
  'create add new make insert open post register submit',
  'get fetch retrieve read show view display see lookup look details',
  'list all enumerate browse show view display index every',
  'search find query filter lookup',
  'update edit modify change patch set alter rename replace',
  'delete remove destroy erase drop purge trash discard',
  'cancel abort stop terminate halt kill',
  'start begin launch run trigger execute dispatch',
  'send deliver submit dispatch',
  'repo repository',
  'pr pull',
  'org organization organisation',
  'user person people',
  'message msg email mail',
  'sms text message',
  'folder directory',
  'image picture photo img media',
  'balance credit funds',
  'event meeting appointment',
  'doc document',
  'config configuration setting preference',
  'id identifier',
  'attach attachment',
  'download export',
  'object file blob',
  'tag label tagging',
  'invoice bill',
  'payment pay charge',
  'customer contact client',
  'call dial phone',
  'comment remark',
  'invite invitation',
  'permission access right',
  'token credential',
  'webhook hook callback',
  'notification alert',
  'subscribe watch follow',
  'unsubscribe unwatch unfollow',
  'close resolve finish',
  'me my mine authenticated current self login',
  'owe debt payable receivable outstanding',
  'apply allocate',
  'move transfer',
  'left remaining',
  'hang terminate end',
  'latest newest',
  'reply answer respond',
  'recommend suggest',
  'favorite favourite',
];

let synonyms: ReadonlyMap<string, readonly string[]> | undefined;

/** The thesaurus by term, made on first use: stemming is not for commands without a search. */
export function synonymsOf(term: string): readonly string[] {
  synonyms ??= thesaurus();
  return synonyms.get(term) ?? [];
}

function thesaurus(): ReadonlyMap<string, readonly string[]> {
  const map = new Map<string, Set<string>>();
  for (const group of SYNONYM_GROUPS) {
    const stems = group.split(' ').map(stem);
    for (const s of stems) {
      const set = map.get(s) ?? new Set<string>();
      for (const other of stems) if (other !== s) set.add(other);
      map.set(s, set);
    }
  }
  return new Map([...map].map(([k, v]) => [k, [...v]]));
}

// Workflow data inside Markdown (Test Explorer messages): the client's one escaping helper
// (issue 18, item 4). The twin of runner/language/markdown.py, by the same CommonMark rules
// (checked against markdown-it in test/unit/markdown.test.ts): a value holding a backtick must
// not end its code span or fence and turn the rest into links, remote images or HTML.

const NEWLINES = /\r\n|\r|\n/g;

function clean(text: string): string {
  // CommonMark replaces NUL by U+FFFD; do it here so what is shown is what we meant
  return String(text).replace(/\0/g, '\ufffd');
}

export function longestBacktickRun(text: string): number {
  let best = 0;
  for (const m of text.matchAll(/`+/g)) {
    best = Math.max(best, m[0].length);
  }
  return best;
}

/** `text` as one inline code span, whatever it holds (line breaks become spaces). */
export function inlineCode(text: string): string {
  const s = clean(text).replace(NEWLINES, ' ');
  if (!s) {
    return '` `';
  }
  const ticks = '`'.repeat(longestBacktickRun(s) + 1);
  const pad = /^[` ]|[` ]$/.test(s) && s.replace(/ /g, '') !== '' ? ' ' : '';
  return `${ticks}${pad}${s}${pad}${ticks}`;
}

/** `text` as a fenced code block whose fence is longer than any backtick run in it. */
export function fence(text: string, info = ''): string {
  const s = clean(text).replace(NEWLINES, '\n');
  const ticks = '`'.repeat(Math.max(3, longestBacktickRun(s) + 1));
  const body = s === '' || s.endsWith('\n') ? s : `${s}\n`;
  return `${ticks}${info}\n${body}${ticks}`;
}

/**
 * `text` shown as written: backslash escapes on every character that can open or close a
 * construct anywhere, and on those that do so only at the start of a line (# + - = and the
 * `.`/`)` of `1.`), so no emphasis, link, image, autolink, HTML, entity, heading, list, quote,
 * table or fence can form, while ordinary prose stays readable.
 */
export function plainText(text: string): string {
  let s = clean(text).replace(NEWLINES, '\n');
  // `_` between two ASCII letters/digits can neither open nor close emphasis: left as is
  s = s.replace(/([\\`*[\]<>&|~]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9]))/g, '\\$1');
  s = s.replace(/^([ \t]*\d{1,9})([.)])/gm, '$1\\$2');
  return s.replace(/^([ \t]*)([#+=-])/gm, '$1\\$2');
}

/** A failed fixture's message and diff for the Test Explorer. */
export function failureMarkdown(message: string, diff: string): string {
  return `${plainText(message)}\n\n${fence(diff, 'diff')}`;
}

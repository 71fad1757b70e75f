// Issue 18, item 4: workflow data in the Test Explorer's Markdown cannot become links, remote
// images or HTML. src/markdown.ts is checked against markdown-it (CommonMark, plus the tables
// and strikethrough of VS Code's GitHub-flavoured renderer) on hostile samples and on
// thousands of generated strings over Markdown's punctuation.
import * as assert from 'assert';
import { failureMarkdown, fence, inlineCode, plainText } from '../../src/markdown';

// eslint-disable-next-line @typescript-eslint/no-var-requires
const MarkdownIt = require('markdown-it');
const md = new MarkdownIt('commonmark').enable(['table', 'strikethrough']);

interface Tok { type: string; content: string; info: string; children: Tok[] | null }
const tokens = (src: string): Tok[] => (md.parse(src, {}) as Tok[]).flatMap((t) => [t, ...(t.children ?? [])]);
const kinds = (src: string) => new Set(tokens(src).map((t) => t.type));
const RENDERS = ['link_open', 'image', 'html_inline', 'html_block'];
const FORBIDDEN = [...RENDERS, 'em_open', 'strong_open', 's_open', 'heading_open', 'bullet_list_open', 'ordered_list_open',
  'blockquote_open', 'hr', 'table_open', 'fence', 'code_inline'];

const HOSTILE = [
  '`', '``` `` `', 'x` ![t](http://evil.example/pixel.png) `', '`[run](command:workbench.action.terminal.new)`',
  '<img src=x onerror=alert(1)>', "<a href='command:x'>a</a>", '<http://evil.example>', '[a]: http://evil.example\n\n[a]',
  '**bold** _em_ ~~s~~ | a | b |\n|---|---|', '# heading\n- item\n1. one\n2) two\n> quote\n---\n===', '&amp; &#x41; \\` \\',
  'a\n\n![x](http://evil.example/p.png)', '\0 nul', '  spaced  ', ' ` ', 'a\r# b\r\n+ c',
];

// a small seeded generator: strings over the characters Markdown gives meaning to
function* generated(n: number): Generator<string> {
  const alphabet = '`*_[]()!<>#-+|~&\\:/ \n\r\tax1.=)';
  let seed = 20261203;
  const next = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
  for (let i = 0; i < n; i++) {
    const len = Math.floor(next() * 40);
    let s = '';
    for (let j = 0; j < len; j++) {
      s += alphabet[Math.floor(next() * alphabet.length)];
    }
    yield s;
  }
}
const samples = () => [...HOSTILE, ...generated(3000)];
const asCode = (s: string) => s.replace(/\r\n|\r|\n/g, ' ').replace(/\0/g, '\ufffd');

describe('Markdown escaping of workflow data', () => {
  it('inlineCode is one code span holding exactly the text', () => {
    for (const s of samples()) {
      const r = inlineCode(s);
      const spans = tokens(r).filter((t) => t.type === 'code_inline');
      assert.strictEqual(spans.length, 1, JSON.stringify([s, r]));
      assert.strictEqual(spans[0].content, asCode(s) || ' ', JSON.stringify([s, r]));
      assert.ok(!FORBIDDEN.filter((k) => k !== 'code_inline').some((k) => kinds(r).has(k)), JSON.stringify([s, r]));
    }
  });

  it('fence is one block holding exactly the text', () => {
    for (const s of samples()) {
      const r = fence(s, 'diff');
      const all = tokens(r);
      assert.strictEqual(all.length, 1, JSON.stringify([s, r]));
      assert.strictEqual(all[0].type, 'fence');
      assert.strictEqual(all[0].info, 'diff');
      const body = s.replace(/\r\n|\r/g, '\n').replace(/\0/g, '\ufffd');
      assert.strictEqual(all[0].content, body === '' || body.endsWith('\n') ? body : `${body}\n`, JSON.stringify([s, r]));
    }
  });

  it('plainText forms no Markdown and shows every character', () => {
    for (const s of samples()) {
      const r = plainText(s);
      const k = kinds(r);
      assert.ok(!FORBIDDEN.some((f) => k.has(f)), JSON.stringify([s, r, [...k]]));
      if (!k.has('code_block')) {
        const shown = tokens(r).filter((t) => t.type === 'text').map((t) => t.content).join('');
        assert.strictEqual(shown.replace(/\s/g, ''), asCode(s).replace(/\s/g, ''), JSON.stringify([s, r]));
      }
    }
  });

  it('a failed fixture with a hostile message and diff renders no link, image or HTML', () => {
    const message = 'output differs ![pixel](http://evil.example/m.png) [run](command:workbench.action.terminal.new) <img src=x>';
    const diff = '- "a"\n+ "```\n![x](http://evil.example/d.png)\n```"';
    const r = failureMarkdown(message, diff);
    assert.ok(!RENDERS.some((k) => kinds(r).has(k)), r);
    const fenced = tokens(r).filter((t) => t.type === 'fence');
    assert.strictEqual(fenced.length, 1);
    assert.strictEqual(fenced[0].content, `${diff}\n`);
    assert.ok(tokens(r).filter((t) => t.type === 'text').map((t) => t.content).join('').includes('![pixel](http://evil.example/m.png)'));
  });
});

import { AGENT_TOOLS } from '../../src/agentTools';
import { reachMarkdown } from '../../src/models';

describe('other Markdown the extension builds from workflow data', () => {
  const EVIL = 'x` ![p](http://evil.example/p.png) [run](command:workbench.action.terminal.new) <img src=x> | y';

  it('the reach document: workflow names, errors and step rows render as text, the table stays whole', () => {
    const step = (id: string) => ({
      step_id: id, function: 'f', code: 'steps/f.py:f', network: 'none', connections: [EVIL], sources: ['s'],
      effects: [], explanation: '', reaches_nothing: false, source_origins: { s: `channel ${EVIL}` }, effect_targets: {},
    });
    const wf = (n: string, workflow: string, over: object) => ({
      manifest: `/w/${n}/workflow.yaml`, manifestUri: `file:///w/${n}/workflow.yaml`, workflow, version: 1,
      python: { pin: null, interpreter: null, problem: null }, problems: 0, error: null, steps: [], ...over,
    });
    const doc = reachMarkdown({
      sentence: 'x',
      workflows: [
        wf('a', `wf ${EVIL}`, { steps: [step('ok'), step(EVIL)] }),
        wf('b', 'broken', { error: `unknown key '${EVIL}'\n# not a heading` }),
      ],
    });
    const k = kinds(doc);
    assert.ok(!RENDERS.some((r) => k.has(r)), doc);
    assert.strictEqual(tokens(doc).filter((t) => t.type === 'heading_open').length, 3, doc);
    assert.strictEqual(tokens(doc).filter((t) => t.type === 'tr_open').length, 3, 'header + 2 rows');
    assert.strictEqual(tokens(doc).filter((t) => t.type === 'td_open').length, 10, 'five cells a row');
  });

  it("language-model tool confirmations quote the agent's input as code", () => {
    const input = { step: EVIL, workflow: EVIL, name: EVIL };
    for (const t of AGENT_TOOLS.filter((x) => x.confirm)) {
      const text = t.confirm!(input);
      assert.ok(!RENDERS.some((r) => kinds(text).has(r)), `${t.name}: ${text}`);
    }
    const run = AGENT_TOOLS.find((x) => x.tool === 'run_step')!.confirm!(input);
    assert.deepStrictEqual(tokens(run).filter((t) => t.type === 'code_inline').map((t) => t.content), [EVIL, EVIL]);
  });
});

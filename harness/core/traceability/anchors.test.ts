import { describe, expect, it } from 'vitest';
import { githubSlug, markdownHeadings, renderedHeadingText } from './anchors.js';

describe('GitHub heading anchors', () => {
  it.each([
    ['4.4 Idempotency rules', '44-idempotency-rules'],
    ['2.4a Media buy', '24a-media-buy'],
    ['1. What the service does', '1-what-the-service-does'],
    ['5.2 Legacy HMAC-SHA256 (deprecated, removed in 4.0)', '52-legacy-hmac-sha256-deprecated-removed-in-40'],
    ['1.9 Verifier checklist (requests) — every step and its code', '19-verifier-checklist-requests--every-step-and-its-code'],
    ['4.6 comply_test_controller (sandbox only)', '46-comply_test_controller-sandbox-only'],
    ['2.6 Probing a LIVE agent’s verifier', '26-probing-a-live-agents-verifier'],
  ])('%s → #%s', (text, anchor) => {
    expect(githubSlug(text)).toBe(anchor);
  });

  it('renders code spans verbatim and drops emphasis and link targets', () => {
    expect(renderedHeadingText('1.6 `@target-uri` canonicalization and **`@authority`**')).toBe('1.6 @target-uri canonicalization and @authority');
    expect(renderedHeadingText('See [the spec](https://example.com/x) `a*b`')).toBe('See the spec a*b');
  });

  it('lists headings outside code fences, numbers them, and de-duplicates anchors', () => {
    const md = ['# Title', '## 1. One', '```', '## 9. Not a heading', '```', '### 1.1 Same', '### 1.1 Same', '#### Notes ##', 'text #not'].join('\n');
    expect(markdownHeadings(md)).toEqual([
      { depth: 1, text: 'Title', anchor: 'title', line: 1 },
      { depth: 2, text: '1. One', section: '1', anchor: '1-one', line: 2 },
      { depth: 3, text: '1.1 Same', section: '1.1', anchor: '11-same', line: 6 },
      { depth: 3, text: '1.1 Same', section: '1.1', anchor: '11-same-1', line: 7 },
      { depth: 4, text: 'Notes', anchor: 'notes', line: 8 },
    ]);
  });
});

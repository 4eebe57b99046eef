/**
 * The HTML report's inline stylesheet and script. Both are constants: no run data is ever
 * written into them. The script only toggles `hidden` on rows by their `data-outcome`
 * attribute; it never reads or writes markup (no innerHTML).
 */

export const REPORT_CSS = `
:root { color-scheme: light dark; --fg: #1b1f24; --bg: #fff; --muted: #59636e; --line: #d1d9e0; --code: #f6f8fa;
  --pass: #1a7f37; --fail: #cf222e; --warn: #9a6700; --info: #0969da; --skip: #6e7781; --error: #8250df; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --bg: #0d1117; --muted: #9198a1; --line: #3d444d; --code: #151b23;
  --pass: #3fb950; --fail: #f85149; --warn: #d29922; --info: #4493f8; --skip: #9198a1; --error: #ab7df8; } }
[hidden] { display: none !important; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); margin: 0 auto; padding: 1.5rem; max-width: 1200px; }
h1 { font-size: 1.5rem; margin: 0 0 .25rem; } h2 { font-size: 1.2rem; margin: 2rem 0 .5rem; border-bottom: 1px solid var(--line); padding-bottom: .25rem; }
code, pre { font: 12px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
pre { background: var(--code); padding: .5rem; overflow: auto; max-height: 24rem; white-space: pre-wrap; overflow-wrap: anywhere; margin: .25rem 0; }
.agent { overflow-wrap: anywhere; font-size: 1rem; }
.muted, small { color: var(--muted); }
table { border-collapse: collapse; width: 100%; margin: .5rem 0; }
th, td { border: 1px solid var(--line); padding: .3rem .5rem; text-align: left; vertical-align: top; overflow-wrap: anywhere; }
thead th { background: var(--code); }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .15rem 1rem; margin: .5rem 0; }
dl.facts dt { color: var(--muted); } dl.facts dd { margin: 0; overflow-wrap: anywhere; }
.badge { display: inline-block; padding: 0 .45rem; border-radius: 1rem; font-weight: 600; font-size: .8rem; border: 1px solid currentColor; white-space: nowrap; }
.big { font-size: 1rem; padding: .1rem .7rem; }
.o-pass, .s-passing, .v-passing { color: var(--pass); }
.o-fail, .s-failing, .v-failing, .v-unreachable, .v-auth_required { color: var(--fail); }
.o-error, .v-error { color: var(--error); }
.o-warn, .s-partial, .v-partial { color: var(--warn); }
.o-info { color: var(--info); }
.o-not_applicable, .o-blocked, .o-gap, .o-not_run, .s-not_applicable, .s-untested { color: var(--skip); }
td.cell .counts { display: block; color: var(--muted); font-size: .8rem; }
.differs { color: var(--warn); font-weight: 700; }
table.checks td:nth-child(-n+3), table.checks thead th:nth-child(-n+3) { white-space: nowrap; width: 1%; }
tr.group-head th { background: var(--code); font-weight: normal; }
tr.group-head .id { font-weight: 600; }
details > summary { cursor: pointer; color: var(--muted); }
details[open] > summary { margin-bottom: .25rem; }
.evidence { margin-top: .35rem; }
.evidence h4 { margin: .5rem 0 .15rem; font-size: .85rem; }
#filters { margin: .5rem 0; display: flex; flex-wrap: wrap; gap: .25rem 1rem; }
#filters label { white-space: nowrap; }
nav a { margin-right: 1rem; }
footer { margin-top: 2rem; color: var(--muted); font-size: .8rem; }
`;

export const REPORT_SCRIPT = `
(function () {
  'use strict';
  var filters = document.getElementById('filters');
  if (!filters) return;
  var boxes = Array.prototype.slice.call(filters.querySelectorAll('input[type="checkbox"][data-filter]'));
  function apply() {
    var shown = {};
    boxes.forEach(function (box) { if (box.checked) shown[box.getAttribute('data-filter')] = true; });
    document.querySelectorAll('tr.result').forEach(function (row) {
      row.hidden = !shown[row.getAttribute('data-outcome')];
    });
    document.querySelectorAll('tbody.group').forEach(function (group) {
      group.hidden = !group.querySelector('tr.result:not([hidden])');
    });
    document.querySelectorAll('section.level').forEach(function (section) {
      var note = section.querySelector('.filtered-out');
      if (note) note.hidden = !!section.querySelector('tbody.group:not([hidden])') || !section.querySelector('tbody.group');
    });
  }
  boxes.forEach(function (box) { box.addEventListener('change', apply); });
  filters.hidden = false;
  apply();
})();
`;

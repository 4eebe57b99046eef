/**
 * The dashboard's stylesheet and script, served from the service's own origin (the pages' CSP
 * allows nothing else). The script never builds markup from data: everything an agent or the API
 * returns lands through `textContent`. The key a holder enters stays in this tab's sessionStorage
 * and goes only to this origin's API, in the Authorization header.
 */

export const DASHBOARD_CSS = `
body { font: 14px/1.45 system-ui, sans-serif; margin: 0 auto; max-width: 72rem; padding: 1rem 1.5rem; color: #1b1b1b; }
h1 { font-size: 1.4rem; } h2 { font-size: 1.1rem; margin-top: 2rem; }
table { border-collapse: collapse; width: 100%; } th, td { text-align: left; padding: .3rem .5rem; border-bottom: 1px solid #ddd; vertical-align: top; }
td.url, .url { font-family: ui-monospace, monospace; word-break: break-all; }
.status { font-weight: 600; } .status-passing, .state-active { color: #2e7d32; } .status-degraded, .state-degraded { color: #a66d00; }
.status-failing { color: #c62828; } .status-unknown, .status-opted_out { color: #616161; }
.flip-regressed { color: #c62828; } .flip-fixed { color: #2e7d32; } .flip-changed { color: #616161; }
.key-bar { display: flex; gap: .5rem; align-items: center; padding: .5rem; background: #f4f4f4; border-radius: 4px; }
.owner { display: none; } body.has-key .owner { display: block; } body.has-key span.owner { display: inline; } body.has-key .no-key { display: none; }
pre { background: #f7f7f7; padding: .5rem; overflow: auto; max-height: 30rem; white-space: pre-wrap; word-break: break-all; }
button { cursor: pointer; }
`;

export const DASHBOARD_JS = `'use strict';
(function () {
  var STORE = 'proto-comply-registry-key';
  var body = document.body;
  function key() { try { return sessionStorage.getItem(STORE) || ''; } catch (e) { return ''; } }
  function setKey(k) { try { if (k) sessionStorage.setItem(STORE, k); else sessionStorage.removeItem(STORE); } catch (e) {} show(); }
  function show() { body.classList.toggle('has-key', key() !== ''); }
  function say(id, text) { var el = document.getElementById(id); if (el) el.textContent = text; }
  function api(method, path, bodyObj) {
    var headers = { authorization: 'Bearer ' + key() };
    var init = { method: method, headers: headers };
    if (bodyObj !== undefined) { headers['content-type'] = 'application/json'; init.body = JSON.stringify(bodyObj); }
    return fetch(path, init).then(function (r) {
      return r.text().then(function (t) {
        var data = null; try { data = JSON.parse(t); } catch (e) { data = t; }
        if (!r.ok) throw new Error(r.status + ': ' + (data && data.error ? data.error : String(t).slice(0, 300)));
        return data;
      });
    });
  }
  var form = document.getElementById('key-form');
  if (form) form.addEventListener('submit', function (e) { e.preventDefault(); var input = document.getElementById('key'); setKey(input.value.trim()); input.value = ''; });
  var forget = document.getElementById('forget-key');
  if (forget) forget.addEventListener('click', function () { setKey(''); });
  show();

  var agent = body.getAttribute('data-agent');
  if (!agent) return;
  var base = '/api/registry/agents/' + agent;
  function act(id, method, path, bodyFn, done) {
    var b = document.getElementById(id);
    if (!b) return;
    b.addEventListener('click', function () {
      say('action-status', 'working…');
      api(method, base + path, bodyFn ? bodyFn() : undefined).then(function (d) { say('action-status', done(d)); }, function (err) { say('action-status', String(err.message)); });
    });
  }
  act('requeue', 'POST', '/monitoring/requeue', null, function (d) { return d.requeued ? 'requeued: probed at the next opportunity' : 'not requeued'; });
  act('pause', 'PUT', '/monitoring/pause', function () { return { paused: true }; }, function () { return 'monitoring paused'; });
  act('resume', 'PUT', '/monitoring/pause', function () { return { paused: false }; }, function () { return 'monitoring resumed'; });

  var diag = document.getElementById('load-diagnostics');
  if (diag) diag.addEventListener('click', function () {
    api('GET', base + '/compliance/diagnostics?limit=100').then(function (d) {
      var tbody = document.getElementById('diagnostics-body');
      while (tbody.firstChild) tbody.removeChild(tbody.firstChild);
      (d.diagnostics || []).forEach(function (x) {
        var tr = document.createElement('tr');
        [x.step_id, x.transport || '', x.task || '', x.response_status === null ? '' : String(x.response_status), x.error_text || '',
         JSON.stringify(x.failed_validations_jsonb).slice(0, 2000)].forEach(function (v) {
          var td = document.createElement('td'); td.textContent = String(v); tr.appendChild(td);
        });
        tbody.appendChild(tr);
      });
      say('diagnostics-status', d.count + ' failing step(s) of run ' + d.run_id);
    }, function (err) { say('diagnostics-status', String(err.message)); });
  });

  var rep = document.getElementById('load-report');
  if (rep) rep.addEventListener('click', function () {
    api('GET', base + '/compliance/report').then(function (d) {
      say('report', JSON.stringify(d, null, 2).slice(0, 200000));
    }, function (err) { say('report', String(err.message)); });
  });
})();
`;

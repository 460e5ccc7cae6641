// The one inline script of report.html: the dump table (search, sort, details on click), bucket ↔
// dump links, and sortable bucket columns. No network, no libraries: it reads the JSON blocks the
// report wrote (report-data.ts documents the row layout; R below mirrors it) and builds the table.
// The page's Content-Security-Policy allows exactly this script, by its hash.
import { createHash } from 'node:crypto';
import { ROW } from './report-data.js';

const SCRIPT = String.raw`(function () {
'use strict';
var R = ${JSON.stringify(ROW)};
function data(id) { var el = document.getElementById(id); return el ? JSON.parse(el.textContent) : []; }
var S = data('cdbh-strings'), B = data('cdbh-buckets'), D = data('cdbh-dumps');
var STATUS = ['ok', 'failed', 'quarantined'];
var LIMIT_STEP = 500;
var state = { query: '', sort: 'file', dir: 1, limit: LIMIT_STEP, open: {} };
var body = document.querySelector('#dump-table tbody');
var input = document.getElementById('dump-search');
var shown = document.getElementById('dump-count');
var more = document.getElementById('dump-more');
function s(i) { return S[i] || ''; }
function esc(t) {
  return String(t).replace(/[&<>"']/g, function (c) {
    return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c];
  });
}
// A signature wraps only at its ' | ' separators: each frame is one unbreakable token.
function sig(text) {
  return '<code class="sig">' + String(text).split(' | ').map(function (t) { return '<span class="tok">' + esc(t) + '</span>'; }).join(' | ') + '</code>';
}
function base(path) { var m = /[^\\/]*$/.exec(path); return m ? m[0] : path; }
function bytes(n) {
  if (n < 1024) return n + ' B';
  var u = ['KB', 'MB', 'GB', 'TB'], v = n / 1024, i = 0;
  while (v >= 1024 && i < u.length - 1) { v /= 1024; i++; }
  return v.toFixed(v < 10 ? 1 : 0) + ' ' + u[i];
}
function bucketOf(d) { return d[R.bucket] >= 0 ? B[d[R.bucket]] : null; }
var keys = [];
function key(i) {
  if (keys[i] === undefined) {
    var d = D[i], b = bucketOf(d), e = d[R.error];
    keys[i] = [d[R.file], s(d[R.code]), s(d[R.name]), s(d[R.process]), STATUS[d[R.status]],
      b ? b[0] + ' ' + b[1] : '', s(d[R.faulting]), e ? s(e[0]) + ' ' + e[1] : '',
      d[R.clr] ? s(d[R.clr][0]) : ''].join('\n').toLowerCase();
  }
  return keys[i];
}
var SORTS = {
  status: function (d) { return d[R.status]; },
  file: function (d) { return d[R.file]; },
  exception: function (d) { return s(d[R.code]) + ' ' + s(d[R.name]); },
  bucket: function (d) { var b = bucketOf(d); return b ? b[1] : '~'; },
  process: function (d) { return s(d[R.process]); },
  time: function (d) { return d[R.time]; },
  size: function (d) { return d[R.size]; },
};
function matches() {
  var q = state.query.trim().toLowerCase(), out = [], i;
  var bucket = /^bucket:(\S+)$/.exec(q), file = /^file:(.+)$/.exec(state.query.trim());
  for (i = 0; i < D.length; i++) {
    if (bucket) { var b = bucketOf(D[i]); if (b && b[0].toLowerCase() === bucket[1]) out.push(i); }
    else if (file) { if (D[i][R.file] === file[1]) out.push(i); }
    else if (q === '' || q.split(/\s+/).every(function (w) { return key(i).indexOf(w) >= 0; })) out.push(i);
  }
  var by = SORTS[state.sort] || SORTS.file, dir = state.dir;
  out.sort(function (x, y) {
    var a = by(D[x]), c = by(D[y]);
    return (a < c ? -1 : a > c ? 1 : x - y) * dir;
  });
  return out;
}
function row(i) {
  var d = D[i], b = bucketOf(d), open = state.open[i] === true;
  var ex = d[R.code] ? '<code class="nowrap">' + esc(s(d[R.code])) + '</code> ' + esc(s(d[R.name])) : '<span class="muted">none</span>';
  var html = '<tr id="d' + i + '" class="st' + d[R.status] + '"><td><button class="x" data-i="' + i +
    '" aria-expanded="' + open + '" title="details">' + (open ? '▾' : '▸') + '</button> ' + STATUS[d[R.status]] +
    '</td><td class="mono" title="' + esc(d[R.file]) + '">' + esc(base(d[R.file])) + '</td><td>' + ex +
    '</td><td>' + (b ? '<a href="#b-' + esc(b[0]) + '" title="' + esc(b[1]) + '"><code class="nowrap">' + esc(b[0]) + '</code></a>' : '—') +
    '</td><td>' + esc(s(d[R.process])) + '</td><td class="mono nowrap">' + esc(d[R.time]) + '</td><td class="num">' + bytes(d[R.size]) + '</td></tr>';
  if (open) html += '<tr class="detail"><td colspan="7">' + detail(i) + '</td></tr>';
  return html;
}
function line(label, html) { return html ? '<tr><th>' + label + '</th><td>' + html + '</td></tr>' : ''; }
function pre(text) { return '<pre class="mono">' + esc(text) + '</pre>'; }
function link(path, text) {
  return /^[a-z][a-z0-9+.-]*:/i.test(path) ? esc(text) : '<a href="' + esc(path) + '">' + text + '</a>';
}
function detail(i) {
  var d = D[i], b = bucketOf(d), e = d[R.error], clr = d[R.clr], h = '<table class="kv">';
  h += line('file', '<span class="mono">' + esc(d[R.file]) + '</span>');
  h += line('sha256', '<span class="mono">' + esc(d[R.sha]) + '</span>');
  if (e) h += line('error', '<span class="bad"><code class="nowrap">' + esc(s(e[0])) + '</code> ' + esc(e[1]) + '</span>' + (e[2] ? pre(e[2]) : ''));
  if (d[R.code]) {
    h += line('exception', '<code class="nowrap">' + esc(s(d[R.code])) + '</code> ' + esc(s(d[R.name])) +
      (d[R.access] ? ' (' + esc(s(d[R.access])) + ')' : '') +
      (d[R.address] ? ' at <code>' + esc(d[R.address]) + '</code>' : '') +
      (d[R.thread] ? ' on thread ' + esc(s(d[R.thread])) : ''));
  }
  if (clr) h += line('.NET exception', '<code>' + esc(s(clr[0])) + '</code> ' + esc(s(clr[1])));
  if (b) h += line('bucket', '<a href="#b-' + esc(b[0]) + '"><code class="nowrap">' + esc(b[0]) + '</code></a> ' + sig(b[1]) + ' (' + b[2] + (b[2] === 1 ? ' dump)' : ' dumps)'));
  var frames = d[R.frames];
  h += line('stack', frames.length === 0 ? '<span class="muted">no frames</span>' :
    '<ol class="frames" start="0">' + frames.map(function (f) { return '<li><code>' + esc(s(f)) + '</code></li>'; }).join('') + '</ol>');
  // Registers in a grid of three to a row, as cdb's r prints them.
  if (d[R.registers]) h += line('registers', '<div class="regs mono">' + s(d[R.registers]).split(' ').map(function (r) { return '<span>' + esc(r) + '</span>'; }).join('') + '</div>');
  var mods = s(d[R.modules]);
  h += line('modules', d[R.moduleCount] + ' loaded' + (d[R.faulting] ? '; faulting <code>' + esc(s(d[R.faulting])) + '</code>' : '') +
    (mods ? '<details><summary>with versions</summary>' + pre(mods) + '</details>' : ''));
  h += line('process', esc(s(d[R.process]) || '?') + (d[R.pid] >= 0 ? ' (pid ' + d[R.pid] + ')' : ''));
  h += line('dump', esc(s(d[R.kind]) || 'unknown kind') + ', ' + bytes(d[R.size]) + (d[R.time] ? ', written <span class="nowrap">' + esc(d[R.time]) + '</span>' : ''));
  h += line('engine', esc(s(d[R.engine])) + ', ' + d[R.ms] + ' ms' + (d[R.attempts] > 1 ? ', ' + d[R.attempts] + ' attempts' : ''));
  if (d[R.missing]) h += line('not in this record', esc(s(d[R.missing])));
  if (d[R.warnings].length) h += line('warnings', d[R.warnings].map(function (w) { return esc(s(w)); }).join('<br>'));
  if (d[R.raw].length) h += line('raw debugger output', d[R.raw].map(function (o) { return link(o[1], '<code>' + esc(s(o[0])) + '</code>'); }).join(' · '));
  return h + '</table>';
}
function render() {
  var list = matches(), n = Math.min(list.length, state.limit), html = [];
  for (var k = 0; k < n; k++) html.push(row(list[k]));
  body.innerHTML = html.join('');
  shown.textContent = list.length === D.length ? D.length + ' dumps' : list.length + ' of ' + D.length + ' dumps match';
  more.hidden = list.length <= n;
  more.textContent = 'show ' + Math.min(LIMIT_STEP, list.length - n) + ' more (' + (list.length - n) + ' not shown)';
  document.querySelectorAll('#dump-table th[data-sort]').forEach(function (th) {
    th.setAttribute('aria-sort', th.dataset.sort === state.sort ? (state.dir > 0 ? 'ascending' : 'descending') : 'none');
  });
}
function search(text) { input.value = text; state.query = text; state.limit = LIMIT_STEP; render(); }
var timer = 0;
input.addEventListener('input', function () {
  clearTimeout(timer);
  timer = setTimeout(function () { state.query = input.value; state.limit = LIMIT_STEP; render(); }, 120);
});
more.addEventListener('click', function () { state.limit += LIMIT_STEP; render(); });
body.addEventListener('click', function (ev) {
  var t = ev.target.closest('button.x');
  if (!t) return;
  var i = Number(t.dataset.i);
  state.open[i] = !state.open[i];
  render();
});
document.querySelectorAll('#dump-table th[data-sort]').forEach(function (th) {
  th.addEventListener('click', function () {
    var k = th.dataset.sort;
    state.dir = state.sort === k ? -state.dir : 1;
    state.sort = k;
    render();
  });
});
// Plain tables (buckets, failures): click a header to sort its rows by that column.
document.querySelectorAll('table.sortable').forEach(function (table) {
  table.querySelectorAll('th').forEach(function (th, col) {
    th.addEventListener('click', function () {
      var tbody = table.tBodies[0], rows = Array.prototype.slice.call(tbody.rows);
      var dir = th.getAttribute('aria-sort') === 'ascending' ? -1 : 1;
      var num = th.classList.contains('num');
      rows.sort(function (x, y) {
        var a = x.cells[col].textContent, b = y.cells[col].textContent;
        if (num) return (Number(a) - Number(b)) * dir;
        return a.localeCompare(b) * dir;
      });
      table.querySelectorAll('th').forEach(function (h) { h.setAttribute('aria-sort', 'none'); });
      th.setAttribute('aria-sort', dir > 0 ? 'ascending' : 'descending');
      rows.forEach(function (r) { tbody.appendChild(r); });
    });
  });
});
// #bucket=ID lists that bucket's dumps; #file=PATH opens that dump.
function follow() {
  var h = decodeURIComponent(location.hash.slice(1)), m;
  if ((m = /^bucket=(.+)$/.exec(h))) search('bucket:' + m[1]);
  else if ((m = /^file=(.+)$/.exec(h))) {
    for (var i = 0; i < D.length; i++) if (D[i][R.file] === m[1]) state.open[i] = true;
    search('file:' + m[1]);
  } else return;
  document.getElementById('dumps').scrollIntoView();
}
window.addEventListener('hashchange', follow);
render();
follow();
document.body.setAttribute('data-ready', '1');
})();`;

export const REPORT_SCRIPT = SCRIPT;

/** For the page's Content-Security-Policy: `script-src 'sha256-…'` allows this script only. */
export const REPORT_SCRIPT_HASH = `sha256-${createHash('sha256').update(SCRIPT, 'utf8').digest('base64')}`;

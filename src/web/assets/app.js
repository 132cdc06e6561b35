// offsetctl ui: progressive enhancement only; every page works without this file.
// - Live steps of a running operation (Server-Sent Events from /jobs/:id/events); at the end the
//   page reloads so the server renders the final state and the snapshot id.
// - The position form: typing a time or a shift picks its radio button.
// No inline handlers, no eval: the Content-Security-Policy allows scripts from this origin only.
(function () {
  'use strict';

  function marks(type, status) {
    if (type === 'step.finished') return status === 'passed' ? ['✓', 'ok'] : ['✗', 'bad'];
    if (type === 'step.started' || type === 'step.waiting') return ['…', 'detail'];
    if (type.indexOf('workflow') === 0) return ['·', 'wf'];
    return ['·', 'detail'];
  }

  function followJob(list) {
    var url = list.getAttribute('data-events');
    if (!url || typeof EventSource === 'undefined') return;
    // The page already shows the events it was rendered with; skip those on replay.
    var shown = list.querySelectorAll('li').length;
    var source = new EventSource(url);
    source.addEventListener('step', function (msg) {
      var e = JSON.parse(msg.data);
      if (e.seq <= shown) return;
      shown = e.seq;
      var m = marks(e.type, e.status);
      var li = document.createElement('li');
      li.className = 'ev ' + m[1];
      li.setAttribute('data-type', e.type);
      if (e.stepId) li.setAttribute('data-step', e.stepId);
      var mark = document.createElement('span');
      mark.className = 'mark';
      mark.setAttribute('aria-hidden', 'true');
      mark.textContent = m[0];
      li.appendChild(mark);
      li.appendChild(document.createTextNode(' ' + e.text));
      list.appendChild(li);
    });
    source.addEventListener('end', function () {
      source.close();
      window.location.reload();
    });
    source.onerror = function () {
      // The server went away or the job ended between reconnects: show whatever it has now.
      source.close();
      window.setTimeout(function () { window.location.reload(); }, 1500);
    };
  }

  function pickOnInput(inputId, radioId) {
    var input = document.getElementById(inputId);
    var radio = document.getElementById(radioId);
    if (!input || !radio) return;
    input.addEventListener('input', function () { radio.checked = true; });
  }

  document.addEventListener('DOMContentLoaded', function () {
    var list = document.getElementById('job-events');
    if (list) followJob(list);
    pickOnInput('position-time-value', 'position-time');
    pickOnInput('position-shift-value', 'position-shift');
  });
})();

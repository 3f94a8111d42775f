// The console's one script, progressive enhancement only: every page works
// without it. A page that waits for the service (the AI step writing a
// listing, answered 202 while it runs) checks again in the background and
// reloads once the answer is something else; without the script, its
// "Check again" link does the same.
(function () {
  'use strict';
  var waiting = document.querySelector('[data-wait]');
  if (!waiting || !window.fetch) {
    return;
  }
  var started = Date.now();
  var giveUpAfter = 10 * 60 * 1000;
  function schedule() {
    if (Date.now() - started < giveUpAfter) {
      window.setTimeout(check, 2000);
    }
  }
  function check() {
    fetch(window.location.href, { credentials: 'same-origin', cache: 'no-store', headers: { Accept: 'text/html' } })
      .then(function (res) {
        if (res.status === 202) {
          schedule();
        } else {
          window.location.reload();
        }
      }, schedule);
  }
  schedule();
}());

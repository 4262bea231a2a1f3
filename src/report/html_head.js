/* html_head.js - the first script of pacer's HTML page (src/report/html.c):
 * every script error, caught or not, lands in <body data-errors>. */
(function () {
  function note(msg) {
    var b = document.body || document.documentElement, p = b.getAttribute('data-errors');
    b.setAttribute('data-errors', (p ? p + ' | ' : '') + msg);
  }
  window.addEventListener('error', function (e) {
    note('error: ' + (e.message || e.type));
  });
  window.addEventListener('unhandledrejection', function (e) {
    note('unhandled rejection: ' + String(e.reason));
  });
})();

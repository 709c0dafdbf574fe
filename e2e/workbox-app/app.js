// The app shell's script: registers the app's worker and counts the times a worker takes control
// of this page, so the spec can tell whether anything claimed it.
window.controllerChanges = 0;
navigator.serviceWorker.addEventListener('controllerchange', () => window.controllerChanges++);
window.registered = navigator.serviceWorker.register('/workbox/sw.js');
document.getElementById('status').textContent = 'The shell script ran.';

/* Preloaded into the GUI smoke tests of the sanitizer build only (scripts/sanitize.sh): dlclose
   keeps libraries loaded, so the GL driver Mesa loads and unloads at exit is still mapped when
   LeakSanitizer reports at exit. Its leaks can then be named by library in tests/lsan_gui.supp
   instead of showing as "<unknown module>", which no suppression can match. */
int dlclose(void* handle) {
  (void)handle;
  return 0;
}

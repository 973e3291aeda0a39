/* Test helper: asks an X11 window to close the way a window manager's close button does (a
 * WM_PROTOCOLS / WM_DELETE_WINDOW client message), for the GUI test that Redraw's close button
 * asks before dropping an unsaved run. Xvfb has no window manager, so nothing else sends it.
 * Usage: x11_close_request TITLE-PART. Exit 0 when a top-level window whose name contains
 * TITLE-PART was sent the request, 1 otherwise. */
#include <X11/Xlib.h>
#include <X11/Xutil.h>

#include <stdio.h>
#include <string.h>

static Window find(Display* d, Window w, const char* part) {
  char* name = NULL;
  if (XFetchName(d, w, &name) && name) {
    const int hit = strstr(name, part) != NULL;
    XFree(name);
    if (hit) return w;
  }
  Window root, parent, *kids = NULL;
  unsigned n = 0;
  Window found = 0;
  if (XQueryTree(d, w, &root, &parent, &kids, &n)) {
    for (unsigned i = 0; i < n && !found; ++i)
      found = find(d, kids[i], part);
    if (kids) XFree(kids);
  }
  return found;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s TITLE-PART\n", argv[0]);
    return 2;
  }
  Display* d = XOpenDisplay(NULL);
  if (!d) {
    fprintf(stderr, "x11_close_request: cannot open the display\n");
    return 1;
  }
  const Window w = find(d, DefaultRootWindow(d), argv[1]);
  if (!w) {
    fprintf(stderr, "x11_close_request: no window named like \"%s\"\n", argv[1]);
    XCloseDisplay(d);
    return 1;
  }
  XEvent e;
  memset(&e, 0, sizeof e);
  e.xclient.type = ClientMessage;
  e.xclient.window = w;
  e.xclient.message_type = XInternAtom(d, "WM_PROTOCOLS", False);
  e.xclient.format = 32;
  e.xclient.data.l[0] = (long)XInternAtom(d, "WM_DELETE_WINDOW", False);
  e.xclient.data.l[1] = CurrentTime;
  XSendEvent(d, w, False, NoEventMask, &e);
  XFlush(d);
  XCloseDisplay(d);
  return 0;
}

/* bigalloc.exe [mb] [lifetime_ms]
 *
 * Commits `mb` MB in 64 MB VirtualAlloc chunks and touches every page (the first 8 bytes of each
 * page hold its own address, so a reader can check what it reads), so a full-memory dump of it is
 * about that big: the minidump benchmark's subject. Prints "PID …", "CHUNK 0x<address> <bytes>"
 * per chunk, "READY <mb>", then waits lifetime_ms (0 = forever). */
#include "common.h"

int main(int argc, char **argv) {
  long mb = arg_long(argc, argv, 1, 2048);
  long lifetime = arg_long(argc, argv, 2, 0);
  const size_t chunk = 64u << 20;
  size_t left = (size_t)mb << 20;
  print_pid();
  while (left > 0) {
    size_t bytes = left < chunk ? left : chunk;
    unsigned char *base = VirtualAlloc(NULL, bytes, MEM_COMMIT | MEM_RESERVE, PAGE_READWRITE);
    if (base == NULL) {
      say("VirtualAlloc failed: %lu", GetLastError());
      return 1;
    }
    for (size_t off = 0; off < bytes; off += 4096) {
      *(ULONG_PTR *)(base + off) = (ULONG_PTR)(base + off);
    }
    say("CHUNK 0x%llx %zu", (unsigned long long)(ULONG_PTR)base, bytes);
    left -= bytes;
  }
  say("READY %ld", mb);
  Sleep(lifetime > 0 ? (DWORD)lifetime : INFINITE);
  return 0;
}

/* leak.exe [kb_per_tick] [interval_ms] [ticks] [large_kb]: a private heap (HeapCreate) that grows
 * by kb_per_tick every tick and is never freed. Prints PID, then a HEAPSTAT line per tick from
 * HeapWalk over that heap, so tests know the true growth independently of the harness.
 * ticks = 0 runs forever. large_kb > 0: one block of that size is allocated from the private heap
 * first and kept (past about 1 MB both Windows' and Wine's heaps give such a block its own
 * virtual allocation, the heap's large-block / VirtualAllocdBlocks list); "LARGE <address>" says
 * where. */
#include "common.h"

volatile size_t g_leaked_bytes = 0;

static void heap_stat(HANDLE heap, long tick) {
  PROCESS_HEAP_ENTRY entry;
  size_t busy = 0, committed = 0, uncommitted = 0, blocks = 0;
  memset(&entry, 0, sizeof entry);
  HeapLock(heap);
  while (HeapWalk(heap, &entry)) {
    if (entry.wFlags & PROCESS_HEAP_ENTRY_BUSY) {
      busy += entry.cbData;
      blocks++;
    } else if (entry.wFlags & PROCESS_HEAP_REGION) {
      committed += entry.Region.dwCommittedSize;
      uncommitted += entry.Region.dwUnCommittedSize;
    }
  }
  HeapUnlock(heap);
  say("HEAPSTAT tick=%ld heap=%p busy=%zu blocks=%zu committed=%zu uncommitted=%zu leaked=%zu",
      tick, heap, busy, blocks, committed, uncommitted, (size_t)g_leaked_bytes);
}

int main(int argc, char **argv) {
  long kb = arg_long(argc, argv, 1, 256);
  long interval = arg_long(argc, argv, 2, 200);
  long ticks = arg_long(argc, argv, 3, 0);
  HANDLE heap = HeapCreate(0, 0, 0);
  print_pid();
  if (heap == NULL) {
    say("HeapCreate failed: %lu", GetLastError());
    return 1;
  }
  say("HEAP %p", heap);
  long large_kb = arg_long(argc, argv, 4, 0);
  if (large_kb > 0) {
    void *large = HeapAlloc(heap, 0, (size_t)large_kb * 1024);
    if (large == NULL) {
      say("large HeapAlloc failed: %lu", GetLastError());
      return 1;
    }
    memset(large, 0x6c, (size_t)large_kb * 1024);
    say("LARGE %p", large);
  }
  for (long tick = 1; ticks == 0 || tick <= ticks; tick++) {
    void *block = HeapAlloc(heap, 0, (size_t)kb * 1024);
    if (block != NULL) {
      memset(block, 0x5a, (size_t)kb * 1024); /* touch it so it is really committed */
      g_leaked_bytes += (size_t)kb * 1024;
    }
    heap_stat(heap, tick);
    Sleep((DWORD)interval);
  }
  return 0;
}

/* The second compilation unit of symcrash.exe: a second module in the PDB's DBI stream and a
 * second file in its line tables. */
__attribute__((noinline)) int store_value(volatile int *where, int value) {
  int doubled = value * 2;
  *where = doubled; /* CRASH-LINE */
  return doubled + 1;
}

/* A C program that links nothing of ours: the cost of starting any process on this machine,
 * against which bench_startup's other figures are read. */
int main(void) {
  return 0;
}

/* The smallest user of libvta: a C program that makes one call (a DRAM buffer) and exits. Its
 * process time is what loading libvta and its start-up cost a tool that starts one per run. */
#include <stdio.h>

#include <vta/driver.h>

int main(void) {
  void* buf = VTAMemAlloc(64, 0);
  if (buf == NULL) {
    fprintf(stderr, "startup_one_call: VTAMemAlloc failed\n");
    return 1;
  }
  return 0;
}

// libsystemc.so references sc_main; Catch2 owns main(). Including <systemc> makes it extern "C".
#include <systemc>
int sc_main(int, char*[]) {
  return 0;
}

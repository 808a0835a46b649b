// libsystemc.so (used by the cycle and rtl backend plugins) references sc_main, which a SystemC
// program defines. Programs that only use libvta (C code written for upstream VTA) have none, so
// each plugin provides a weak default; a program's own sc_main takes precedence. The backends
// never call sc_elab_and_sim, so this function is never run.
extern "C" __attribute__((weak)) int sc_main(int argc, char* argv[]) {
  (void)argc;
  (void)argv;
  return 0;
}

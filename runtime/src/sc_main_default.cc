// libsystemc.so (used by the cycle and rtl backends inside libvta) references sc_main, which a
// SystemC program defines. Programs that only use libvta (C code written for upstream VTA) have
// none, so libvta provides a weak default; a program's own sc_main takes precedence. libvta
// never calls sc_elab_and_sim, so this function is never run by the runtime itself.
extern "C" __attribute__((weak)) int sc_main(int argc, char* argv[]) {
  (void)argc;
  (void)argv;
  return 0;
}

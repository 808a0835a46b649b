// vtasim: the command-line front end. Each subcommand is one function taking the arguments
// after "vtasim" (argv[0] is the subcommand name); add one line to kCommands per subcommand.
#include <cstring>
#include <iostream>

#include <fmt/format.h>

#include "vta/sim/version.h"

namespace vta::cli {
int cmd_run(int argc, char** argv);      // cmd_run.cc
int cmd_demo(int argc, char** argv);     // cmd_run.cc
int cmd_disasm(int argc, char** argv);   // cmd_disasm.cc
int cmd_conv2d(int argc, char** argv);   // cmd_conv2d.cc
int cmd_matmul(int argc, char** argv);   // cmd_matmul.cc
int cmd_network(int argc, char** argv);  // cmd_network.cc
int cmd_sweep(int argc, char** argv);    // cmd_sweep.cc
}  // namespace vta::cli

namespace {

struct Command {
  const char* name;
  const char* help;
  int (*fn)(int argc, char** argv);
};

const Command kCommands[] = {
    {"demo", "build and run a built-in blocked GEMM + ALU program, checked against C++",
     vta::cli::cmd_demo},
    {"run", "execute a program image (or a raw instruction stream) and print the report",
     vta::cli::cmd_run},
    {"disasm", "disassemble a raw instruction stream or a program image", vta::cli::cmd_disasm},
    {"conv2d", "compile a conv2d layer (shape or --layer resnet18.C8), run it, check it, report",
     vta::cli::cmd_conv2d},
    {"matmul", "compile an int8 matmul with epilogue, run it, check it, report",
     vta::cli::cmd_matmul},
    {"network", "run a network (resnet18 or a JSON file) layer by layer and report",
     vta::cli::cmd_network},
    {"sweep", "run a design-space sweep (JSON spec) into SQLite; sweep export / sweep merge",
     vta::cli::cmd_sweep},
};

void usage(std::ostream& os) {
  os << "usage: vtasim <command> [options]   (vtasim <command> --help for its options)\n"
        "       vtasim --version\n\n"
        "A simulator of the VTA deep-learning accelerator (ISA 0.0.2).\n\ncommands:\n";
  for (const Command& c : kCommands) {
    os << fmt::format("  {:<10} {}\n", c.name, c.help);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "vtasim: error: missing command\n\n";
    usage(std::cerr);
    return 2;
  }
  const char* name = argv[1];
  if (std::strcmp(name, "--version") == 0 || std::strcmp(name, "version") == 0) {
    std::cout << "vtasim " << vta::simulator_version() << " (VTA ISA 0.0.2)\n";
    return 0;
  }
  if (std::strcmp(name, "--help") == 0 || std::strcmp(name, "-h") == 0 ||
      std::strcmp(name, "help") == 0) {
    usage(std::cout);
    return 0;
  }
  for (const Command& c : kCommands) {
    if (std::strcmp(name, c.name) == 0) {
      return c.fn(argc - 1, argv + 1);
    }
  }
  std::cerr << "vtasim: error: unknown command '" << name << "'\n\n";
  usage(std::cerr);
  return 2;
}

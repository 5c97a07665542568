#include "commands.h"
int cmd_usage(int argc, char **argv) { (void)argc; (void)argv; return 2; }

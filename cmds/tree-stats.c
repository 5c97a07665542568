#include "commands.h"
int cmd_tree_stats(int argc, char **argv) { (void)argc; (void)argv; return 2; }
